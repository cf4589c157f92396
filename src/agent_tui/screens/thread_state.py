"""One thread's current state: status, next nodes, tasks and interrupts, messages, values.

Until the thread debugger (a later issue) replaces it, this is what `enter` on a thread
and `:thread <id>` open. Messages read as a transcript; every other state key, the tasks
and the checkpoint metadata are JSON (S's `JsonView`). All server text goes through
`server_text`/`json_view`, so nothing in a state can act as markup or a control code.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from agent_tui.client import AgentServerClient, ApiError, NotFound, ValidationFailed
from agent_tui.client.models import Thread, ThreadState
from agent_tui.error_messages import describe_error
from agent_tui.screens.base import AgentScreen
from agent_tui.thread_query import content_text, format_time, message_role, short_id
from agent_tui.widgets.breadcrumb import Breadcrumb
from agent_tui.widgets.json_view import JsonView
from agent_tui.widgets.resource_table import status_text
from agent_tui.widgets.text import server_text

ROLE_STYLES = {"human": "bold cyan", "user": "bold cyan", "ai": "bold green", "tool": "bold yellow"}


def transcript(messages: list[Any]) -> Text:
    """Messages as a readable conversation: role, text, tool calls; all inert."""
    text = Text()
    for index, message in enumerate(messages):
        if index:
            text.append("\n\n")
        role = message_role(message) or "message"
        text.append_text(server_text(role, style=ROLE_STYLES.get(role, "bold")))
        if isinstance(message, dict) and message.get("name"):
            text.append_text(server_text(f" ({message['name']})", style="dim"))
        content = message.get("content") if isinstance(message, dict) else message
        body = content_text(content)
        if body.strip():
            text.append("\n")
            text.append_text(server_text(body))
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                args = json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
                text.append("\n→ ", style="yellow")
                text.append_text(server_text(f"{call.get('name', '?')}({args})", style="yellow"))
    return text


def summary(thread: Thread | None, state: ThreadState) -> Text:
    """The lines at the top: status, graph, checkpoint, next nodes, interrupts."""
    rows: list[tuple[str, Text]] = []
    if thread is not None:
        rows.append(("Status", status_text(thread.status)))
        rows.append(("Graph", server_text(thread.metadata.get("graph_id", "—"))))
        rows.append(("Updated", Text(format_time(thread.updated_at))))
    rows.append(("Checkpoint", server_text(state.checkpoint_id or "—")))
    step = state.step
    rows.append(("Step", Text("—" if step is None else str(step))))
    rows.append(("Next", server_text(", ".join(state.next) or "— (nothing pending)")))
    interrupts = [i for task in state.tasks for i in task.interrupts] or state.interrupts
    if interrupts:
        rows.append(("Interrupts", Text(str(len(interrupts)), style="magenta")))
    text = Text()
    for label, value in rows:
        text.append(f"{label:<12}", style="bold")
        text.append_text(value)
        text.append("\n")
    text.rstrip()
    return text


class ThreadStateScreen(AgentScreen[None]):
    """The state of `thread_id`; `thread` (when the caller has it) shows its status at once."""

    CSS_PATH = "thread_state.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="thread_state.back"),
        Binding("r", "refresh", "Refresh", id="thread_state.refresh"),
        Binding("y", "raw", "Raw JSON", id="thread_state.raw"),
        Binding("c", "copy_id", "Copy id", id="thread_state.copy_id"),
    ]

    def __init__(self, client: AgentServerClient, thread_id: str) -> None:
        super().__init__()
        self.client = client
        self.thread_id = thread_id
        self.thread: Thread | None = None
        self.state: ThreadState | None = None
        self.failure: str | None = None  # why the last load failed, as shown

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        with VerticalScroll(id="thread-state"):
            yield Static(server_text(f"Thread {self.thread_id}"), id="state-title")
            yield Static(id="state-error")
            yield Static(id="state-summary")
            yield Static("Messages", classes="section-title messages")
            yield Static(id="state-transcript", classes="messages")
            yield Static("Values", classes="section-title values")
            yield JsonView(id="state-values", classes="values")
            yield Static("Tasks and interrupts", classes="section-title tasks")
            yield JsonView(id="state-tasks", classes="tasks")
            yield Static("Thread metadata", classes="section-title")
            yield JsonView(id="thread-metadata")
            yield Static("Checkpoint metadata", classes="section-title")
            yield JsonView(id="state-metadata")
        yield Footer()

    def on_mount(self) -> None:
        self._select(short_id(self.thread_id))
        self.load()

    def on_unmount(self) -> None:
        self._select(None)

    def _select(self, thread: str | None) -> None:
        selection = getattr(self.app, "selection", None)
        if selection is not None:
            selection.update(thread=thread)

    def action_back(self) -> None:
        self.dismiss(None)

    def action_refresh(self) -> None:
        self.load()

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.thread_id)
        self.notify(f"Copied {self.thread_id}", markup=False)

    def action_raw(self) -> None:
        from agent_tui.screens.raw_json import RawJsonScreen

        if self.state is None:
            return
        raw = {"thread": self.thread.raw() if self.thread else None, "state": self.state.raw()}
        self.app.push_screen(RawJsonScreen(raw, title=f"Thread {self.thread_id}"))

    def load(self) -> None:
        self.query_one("#thread-state").loading = True
        self._load()

    @work(exclusive=True, group="thread-state", exit_on_error=False)
    async def _load(self) -> None:
        try:
            thread = await self.client.threads.get(self.thread_id)
            state = await self.client.threads.get_state(self.thread_id)
        except (NotFound, ValidationFailed) as error:
            reason = "no such thread" if isinstance(error, NotFound) else "not a thread id"
            self._fail(f"Thread {self.thread_id} not found on this server ({reason}).", error)
            return
        except ApiError as error:
            title, body = describe_error(error, "load the thread")
            self._fail(f"{title}\n{body}", error)
            return
        finally:
            self.query_one("#thread-state").loading = False
        self.thread, self.state, self.failure = thread, state, None
        self._show(thread, state)

    def _fail(self, message: str, error: ApiError) -> None:
        self.failure = message
        widget = self.query_one("#state-error", Static)
        widget.update(server_text(message))
        widget.display = True
        self.notify(message, title="Thread", severity="error", markup=False)

    def _show(self, thread: Thread, state: ThreadState) -> None:
        self.query_one("#state-error", Static).display = False
        self.query_one("#state-summary", Static).update(summary(thread, state))
        values = state.values if isinstance(state.values, dict) else {"value": state.values}
        messages = values.get("messages")
        has_messages = isinstance(messages, list) and bool(messages)
        self.query_one("#state-transcript", Static).update(
            transcript(messages) if isinstance(messages, list) and messages else Text("")
        )
        others = {k: v for k, v in values.items() if k != "messages" or not has_messages}
        self.query_one("#state-values", JsonView).update(others)
        for widget in self.query(".messages"):
            widget.display = has_messages
        for widget in self.query(".values"):
            widget.display = bool(others) or not has_messages
        tasks = [task.raw() for task in state.tasks]
        self.query_one("#state-tasks", JsonView).update(
            {"tasks": tasks, "interrupts": state.interrupts} if state.interrupts else tasks
        )
        for widget in self.query(".tasks"):
            widget.display = bool(tasks or state.interrupts)
        self.query_one("#thread-metadata", JsonView).update(thread.metadata)
        self.query_one("#state-metadata", JsonView).update(state.metadata)
