"""The state at one checkpoint: ids, step, next, interrupts, then collapsible sections for
the messages (a readable transcript), the other values (a JSON tree), the subgraphs a
pending task is inside (when the state was read with `subgraphs=true`: each nested with
its namespace, `threads/subgraph_state.py`), tasks and metadata.

Widgets do no I/O: the thread view gives `show(state)` a `ThreadState` it has loaded.
Every server string goes through `server_text`/the JSON views, so it stays inert.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widget import MountError
from textual.widgets import Collapsible, Static

from agent_tui.client.models import ThreadState
from agent_tui.text.message_text import content_text, message_role
from agent_tui.text.time_text import utc_seconds_of_text
from agent_tui.threads.subgraph_state import (
    SubgraphHistory,
    frames_as_json,
    paused_at,
    says_less_than,
    subgraph_frames,
)
from agent_tui.threads.writes import checkpoint_interrupts
from agent_tui.tui.widgets.json_view import JsonTree, JsonView
from agent_tui.tui.widgets.laid_out_once import expect_vertical_scroll_bar
from agent_tui.tui.widgets.text import server_text

ROLE_STYLES = {"human": "bold cyan", "user": "bold cyan", "ai": "bold green", "tool": "bold yellow"}


def transcript(messages: list[Any]) -> Text:
    """Messages as a conversation: role (and name), text, tool calls; all inert."""
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


DETAILS_DELAY = 0.3  # seconds after the first state is painted: its lower sections are built
TREE_ITEMS = 200  # list items drawn in the values tree; `y` shows the whole state
TREE_HEIGHT = 40  # lines of the values tree at most (it scrolls)


def trimmed(value: Any, limit: int = TREE_ITEMS) -> Any:
    """`value` with every list cut to its first `limit` items (a last item says how many
    are left out): a tree of 5,000 list items would take a while to draw on each move."""
    if isinstance(value, dict):
        return {key: trimmed(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        items = [trimmed(item, limit) for item in value[:limit]]
        if len(value) > limit:
            items.append(f"… {len(value) - limit} more items (y: raw JSON)")
        return items
    return value


def checkpoint_summary(state: ThreadState) -> Text:
    """The lines at the top: checkpoint and parent ids, step, source, time, next, interrupts."""

    def shown(value: str | None) -> str:
        return value or "—"

    interrupts = checkpoint_interrupts(state)
    rows: list[tuple[str, Text]] = [
        ("Checkpoint", server_text(shown(state.checkpoint_id))),
        ("Parent", server_text(shown(state.parent_checkpoint_id))),
        ("Step", Text("—" if state.step is None else str(state.step))),
        ("Source", server_text(state.source or "—")),
        ("Time", Text(utc_seconds_of_text(state.created_at))),
        ("Next", server_text(", ".join(state.next) or "— (nothing pending)")),
    ]
    inside = paused_at(state)
    if inside is not None:
        rows.append(("Inside", server_text(inside, style="bold")))
    if interrupts:
        values = [json.dumps(i.get("value"), ensure_ascii=False, default=str) for i in interrupts]
        rows.append(("Interrupts", server_text("; ".join(values), style="magenta")))
    text = Text()
    for label, value in rows:
        text.append(f"{label:<11}", style="bold")
        text.append_text(value)
        text.append("\n")
    text.rstrip()
    return text


class CheckpointView(VerticalScroll):
    """Shows one checkpoint's state; `checkpoint_id` is the one shown (None: nothing yet)."""

    DEFAULT_CSS = f"""
    CheckpointView {{ padding: 0 1; }}
    CheckpointView #checkpoint-summary {{ margin-bottom: 1; }}
    CheckpointView Collapsible {{ padding: 0; border-top: none; }}
    /* A section's title is a row as wide as the view, not as wide as its text: Textual
       sized it to its text ("▶ Tasks") and, under load, kept that width once the title
       became "▶ Tasks (0)" — cut to "▶ Tasks" until something else laid the view out. */
    CheckpointView CollapsibleTitle {{ width: 1fr; }}
    CheckpointView JsonTree {{ height: auto; max-height: {TREE_HEIGHT}; }}
    CheckpointView JsonView {{ height: auto; }}
    CheckpointView #checkpoint-transcript {{ padding: 0 1; }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=False)
        self.checkpoint_id: str | None = None
        self.state: ThreadState | None = None
        self._details: asyncio.Future[None] | None = None  # the sections below the values
        self._build_timer: Timer | None = None
        self._build_waits_for_paint = False
        self._built = False
        self._subgraph_history: tuple[str, list[SubgraphHistory]] | None = None
        # Their contents, drawn into before they are composed as well as after.
        self._subgraphs_json = JsonView(id="checkpoint-subgraphs-json")
        self._subgraph_history_text = Static(id="checkpoint-subgraph-history-text")
        self._tasks_json = JsonView(id="checkpoint-tasks-json")
        self._metadata_json = JsonView(id="checkpoint-metadata-json")

    def compose(self) -> ComposeResult:
        yield Static(Text("Select a checkpoint", style="dim"), id="checkpoint-summary")
        with Collapsible(title="Messages", id="checkpoint-messages", collapsed=False):
            yield Static(id="checkpoint-transcript")
        with Collapsible(title="Values", id="checkpoint-values", collapsed=False):
            yield JsonTree({}, label="values", id="checkpoint-values-tree")

    def _build_soon(self, *, now: bool = False) -> None:
        """The sections below the values (20 of the view's 30 widgets) are built a
        moment after the first state is drawn (its first paint does not wait for them:
        building them is a mount and a layout, ~70 ms of opening a thread), or now when
        they have something to show (the subgraphs a task is inside)."""
        if self._details is not None or (self._build_timer is not None and not now):
            return
        if self._build_timer is not None:
            self._build_timer.stop()
        if now:
            self.call_later(self.build_details)
        elif not self._build_waits_for_paint:
            # Counted from the paint: a state drawn before the view's first layout would
            # otherwise see them built into its first frames on a slow machine.
            self._build_waits_for_paint = True
            self.call_after_refresh(self._build_later)

    def _build_later(self) -> None:
        if self._details is None and self._build_timer is None:
            self._build_timer = self.set_timer(DETAILS_DELAY, self.build_details)

    async def build_details(self) -> None:
        """Mount the subgraph, task and metadata sections, then draw the state shown
        meanwhile into them. Done once."""
        if self._details is not None:
            await self._details
            return
        self._details = asyncio.get_running_loop().create_future()
        try:
            await self.mount_all(
                [
                    Collapsible(
                        self._subgraphs_json,
                        title="Subgraphs",
                        id="checkpoint-subgraphs",
                        collapsed=False,
                    ),
                    Collapsible(
                        self._subgraph_history_text,
                        title="Subgraph checkpoints",
                        id="checkpoint-subgraph-history",
                    ),
                    Collapsible(self._tasks_json, title="Tasks", id="checkpoint-tasks"),
                    Collapsible(
                        self._metadata_json,
                        title="Metadata",
                        id="checkpoint-metadata",
                    ),
                ]
            )
            # Not when the view was taken down meanwhile (the thread view left).
            self._built = bool(self.query("#checkpoint-subgraphs"))
        except MountError:
            self._built = False  # the view is being taken down
        finally:
            self._details.set_result(None)
        if not self._built:
            return
        self.query_one("#checkpoint-subgraphs").display = False
        self.query_one("#checkpoint-subgraph-history").display = False
        if self.state is not None:
            self._show_details(self.state, again=False)
        if self._subgraph_history is not None:
            self.show_subgraph_history(*self._subgraph_history)

    @property
    def details_built(self) -> bool:
        return self._built

    def show_subgraph_history(self, checkpoint_id: str, histories: list[SubgraphHistory]) -> None:
        """The checkpoints each subgraph of `checkpoint_id`'s tasks wrote, in its namespace
        (ignored if another checkpoint is shown by now)."""
        if checkpoint_id != self.checkpoint_id or not histories:
            return
        self._subgraph_history = (checkpoint_id, histories)
        if not self.details_built:
            self._build_soon(now=True)
            return  # drawn once the section is built
        section = self.query_one("#checkpoint-subgraph-history", Collapsible)
        section.title = f"Subgraph checkpoints ({sum(len(h.checkpoints) for h in histories)})"
        text = Text()
        for history in histories:
            for i, line in enumerate(history.lines()):
                text.append_text(server_text(line, style="bold" if i == 0 else ""))
                text.append("\n")
        self._subgraph_history_text.update(text)
        section.display = True

    @property
    def subgraph_history_text(self) -> str:
        if not self.details_built:
            return ""
        section = self.query_one("#checkpoint-subgraph-history")
        if not section.display:
            return ""
        return str(self._subgraph_history_text.render())

    @property
    def transcript_text(self) -> str:
        return str(self.query_one("#checkpoint-transcript", Static).render())

    def show(self, state: ThreadState) -> None:
        """Draw `state`. The same checkpoint drawn again (its state read with its
        subgraphs) keeps the subgraph checkpoints shown: the two are read apart."""
        if self.state is not None and says_less_than(state, self.state):
            # Drawn, it took away where the thread waits inside its subgraphs until they
            # were read again (the history reloaded under a state read with them).
            return
        again = state.checkpoint_id is not None and state.checkpoint_id == self.checkpoint_id
        self.state = state
        self.checkpoint_id = state.checkpoint_id
        summary = checkpoint_summary(state)
        self.query_one("#checkpoint-summary", Static).update(summary)
        values = state.values if isinstance(state.values, dict) else {"value": state.values}
        messages = values.get("messages")
        has_messages = isinstance(messages, list) and bool(messages)
        self.query_one("#checkpoint-messages").display = has_messages
        self.query_one("#checkpoint-transcript", Static).update(
            transcript(messages) if isinstance(messages, list) and has_messages else Text("")
        )
        others = {k: v for k, v in values.items() if k != "messages" or not has_messages}
        self.query_one("#checkpoint-values").display = bool(others) or not has_messages
        tree = self.query_one("#checkpoint-values-tree", JsonTree)
        tree.update(trimmed(others), expand_depth=2)
        # At least: the summary, its margin, the values' title and tree (`DEFAULT_CSS`).
        values_shown = self.query_one("#checkpoint-values").display
        values_lines = 1 + min(tree.lines, TREE_HEIGHT) if values_shown else 0
        expect_vertical_scroll_bar(self, len(summary.plain.splitlines()) + 1 + values_lines)
        if not again:
            self._subgraph_history = None
        if self.details_built:
            self._show_details(state, again=again)
        else:
            self._build_soon(now=bool(subgraph_frames(state)))

    def _show_details(self, state: ThreadState, *, again: bool) -> None:
        frames = subgraph_frames(state)
        subgraphs = self.query_one("#checkpoint-subgraphs", Collapsible)
        subgraphs.display = bool(frames)
        subgraphs.title = f"Subgraphs ({len(frames)})"
        self._subgraphs_json.update(frames_as_json(frames))
        if not again:
            self.query_one("#checkpoint-subgraph-history").display = False
        tasks = [task.raw() for task in state.tasks]
        self.query_one("#checkpoint-tasks", Collapsible).title = f"Tasks ({len(tasks)})"
        self._tasks_json.update(tasks)
        self._metadata_json.update(state.metadata)
