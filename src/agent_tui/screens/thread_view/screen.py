"""The thread view — the debugger: history, the state at a checkpoint, diffs, the fork tree.

Left, the history (`widgets/history_pane.py`): one row per checkpoint, most recent first,
paged with `ThreadHistory.load_more` as the cursor nears the end, so a 5,000-checkpoint
thread opens with one request. Right, tabs: the selected checkpoint's state
(`CheckpointView`), a diff (`DiffView`: against its parent, or against the checkpoint
marked with `m` after `d`) and the fork tree (`ForkTree`, `t`). The header line keeps the
thread's status in view; a timer refreshes it, and a change on the server (a run that
ended, a fork from elsewhere) brings the new checkpoints in at the top.

Fork, replay and export are in `actions.py`, mark, diff and the fork tree in
`compare.py`; the Chat tab (the first one) is
`ChatPane` (panes/chat_pane.py), with its screen keys in `chat.py`. `enter` on a thread
opens this screen on the State tab; `:thread <id>` (`thread_view_screen`) opens it on the
Chat tab with the prompt focused.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import ApiError, NotFound, ValidationFailed
from agent_tui.client.models import Thread
from agent_tui.history import HistoryRow, ThreadHistory
from agent_tui.modals.raw_json import RawJsonScreen
from agent_tui.palette import PaletteCommand
from agent_tui.panes.chat_pane import ChatPane
from agent_tui.routes import RouteUnavailable
from agent_tui.screens.thread_view.actions import ThreadActions
from agent_tui.screens.thread_view.chat import CHAT_BINDINGS, ChatControls
from agent_tui.screens.thread_view.compare import Comparison
from agent_tui.thread_query import short_id
from agent_tui.widgets.breadcrumb import Breadcrumb
from agent_tui.widgets.checkpoint_view import CheckpointView
from agent_tui.widgets.diff_view import DiffView
from agent_tui.widgets.event_inspector import EventInspector
from agent_tui.widgets.fork_tree import ForkTree
from agent_tui.widgets.history_pane import HistoryPane
from agent_tui.widgets.resource_table import status_text
from agent_tui.widgets.text import server_text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.app import App
    from textual.screen import Screen
    from textual.timer import Timer

    from agent_tui.client import AgentServerClient

STATUS_INTERVAL = 3.0  # seconds between status refreshes
PAGE_SIZE = 100
SHOW_DELAY = 0.06  # seconds the cursor rests on a row before its state is drawn
NARROW_FOR_HISTORY = 100  # columns: below, a view opened on the chat hides the history


class ThreadViewScreen(ThreadActions):
    CSS_PATH = "screen.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="thread_view.back"),
        Binding("f", "fork", "Fork", id="thread_view.fork"),
        Binding("p", "replay", "Run from here", id="thread_view.replay"),
        # The rest stay out of the footer (80 columns): `?` lists them.
        Binding("m", "mark", "Mark", show=False, id="thread_view.mark"),
        Binding("d", "diff", "Diff", show=False, id="thread_view.diff"),
        Binding("t", "tree", "Fork tree", show=False, id="thread_view.tree"),
        Binding("s", "state", "State", show=False, id="thread_view.state"),
        Binding("x", "export", "Export", show=False, id="thread_view.export"),
        Binding("i", "import", "Import", show=False, id="thread_view.import"),
        Binding("r", "refresh", "Refresh", show=False, id="thread_view.refresh"),
        Binding("y", "raw", "Raw JSON", show=False, id="thread_view.raw"),
        Binding("c", "copy_id", "Copy id", show=False, id="thread_view.copy_id"),
        *CHAT_BINDINGS,
    ]

    def __init__(
        self,
        client: AgentServerClient,
        thread_id: str,
        *,
        page_size: int = PAGE_SIZE,
        status_interval: float = STATUS_INTERVAL,
        chat: bool = False,
        assistant: ChatAssistant | None = None,
    ) -> None:
        """`chat`: open on the Chat tab with the prompt focused (else the State tab).
        `assistant`: the one the chat runs (else the thread's metadata decides)."""
        super().__init__()
        self.client = client
        self.thread_id = thread_id
        self.history = ThreadHistory(client, thread_id, page_size=page_size)
        self.thread: Thread | None = None
        self.failure: str | None = None
        self.progress = ""
        self.status_interval = status_interval
        self._lock = asyncio.Lock()  # one change of `history` at a time
        self._show_timer: Timer | None = None
        self.open_on_chat = chat
        self.chat_assistant = assistant
        self.compare = Comparison(self, self.history, show_row=self.show_row)
        self.chat_controls = ChatControls(self, client, open_chat=self.open_chat)
        if chat:
            # What the screen focuses when it shows (a class variable in Textual, read
            # through the instance).
            setattr(self, "AUTO_FOCUS", "#prompt")  # noqa: B010

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield Static(id="thread-header")
        with Horizontal(id="thread-body"):
            yield HistoryPane(id="history")
            initial = "tab-chat" if self.open_on_chat else "tab-state"
            with TabbedContent(id="thread-tabs", initial=initial):
                with TabPane("Chat", id="tab-chat"):
                    yield ChatPane(
                        self.client,
                        self.thread_id,
                        assistant=self.chat_assistant,
                        load=self.open_on_chat,
                        id="chat",
                    )
                with TabPane("State", id="tab-state"):
                    yield CheckpointView(id="checkpoint")
                with TabPane("Diff", id="tab-diff"):
                    yield DiffView(id="diff")
                with TabPane("Fork tree", id="tab-tree"):
                    yield ForkTree(id="fork-tree")
        yield Footer()

    @property
    def pane(self) -> HistoryPane:
        return self.query_one(HistoryPane)

    @property
    def chat(self) -> ChatPane:
        return self.query_one(ChatPane)

    @property
    def checkpoint_view(self) -> CheckpointView:
        return self.query_one(CheckpointView)

    @property
    def diff_view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def fork_tree(self) -> ForkTree:
        return self.query_one(ForkTree)

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one(TabbedContent)

    @property
    def selected_row(self) -> HistoryRow | None:
        return self.pane.selected_item

    @property
    def assistant_id(self) -> str | None:
        metadata = self.thread.metadata if self.thread else {}
        for key in ("assistant_id", "graph_id"):
            value = metadata.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    # -- loading ----------------------------------------------------------------------

    def on_mount(self) -> None:
        selection = getattr(self.app, "selection", None)
        if selection is not None:
            selection.update(thread=short_id(self.thread_id))
        self.show_header()
        if not self.open_on_chat:
            self.pane.focus()
        elif self.app.size.width < NARROW_FOR_HISTORY:
            # A narrow terminal opened on the chat: the chat takes the width
            # (`ctrl+b` shows the history pane).
            self.query_one("#history").display = False
        self._open()
        if self.status_interval > 0:
            self.set_interval(self.status_interval, self._poll_status)

    def on_unmount(self) -> None:
        selection = getattr(self.app, "selection", None)
        # Not when the view that replaced this one (`n`) already named its own thread.
        if selection is not None and selection.thread == short_id(self.thread_id):
            selection.update(thread=None)

    @work(exclusive=True, group="thread-open", exit_on_error=False)
    async def _open(self) -> None:
        self.pane.loading = True
        try:
            async with self._lock:
                self.thread = await self.client.threads.get(self.thread_id)
                rows = await self.history.load_more()
        except (NotFound, ValidationFailed) as error:
            reason = "no such thread" if isinstance(error, NotFound) else "not a thread id"
            self.failure = f"Thread {self.thread_id} not found on this server ({reason})."
            self.notify(self.failure, title="Thread", severity="error", markup=False)
            self.show_header()
            return
        except ApiError as error:
            self.failure = "could not load the thread"
            self.report_error(error, doing="load the thread")
            self.show_header()
            return
        finally:
            self.pane.loading = False
        self.show_header()
        self.pane.set_rows(rows, has_more=not self.history.exhausted)
        if rows:
            self.show_row(rows[0])
        else:
            self.checkpoint_view.query_one("#checkpoint-summary", Static).update(
                Text("This thread has no checkpoints yet.", style="dim")
            )

    @on(HistoryPane.NeedMore)
    def _need_more(self, event: HistoryPane.NeedMore) -> None:
        event.stop()
        self._load_more()

    @work(exclusive=True, group="thread-more", exit_on_error=False)
    async def _load_more(self) -> None:
        waiting = {row.checkpoint_id for row in self.history.rows if row.writes_source is None}
        try:
            async with self._lock:
                rows = await self.history.load_more()
        except ApiError as error:
            self.report_error(error, doing="load older checkpoints")
            self.pane.has_more = False
            return
        # Rows whose parent came with this page now know what wrote them.
        for row in self.history.rows:
            if row.checkpoint_id in waiting and row.writes_source is not None:
                self.pane.update_item(row)
        self.pane.append_rows(rows, has_more=not self.history.exhausted)
        self.compare.refresh_tree()

    async def reload_newer(self, select: str | None) -> None:
        """Bring in checkpoints made since loading (at the top) and select `select`, or
        the newest checkpoint when None."""
        try:
            async with self._lock:
                if not self.history.rows:
                    # An empty thread's history was "exhausted" at open; a run since
                    # made its first checkpoints.
                    self.history.exhausted = False
                fresh = await self.history.load_newer()
                self.thread = await self.client.threads.get(self.thread_id)
        except ApiError as error:
            self.report_error(error, doing="load the new checkpoints")
            return
        self.show_header()
        if fresh:
            self.pane.set_rows(self.history.rows, has_more=not self.history.exhausted)
        target = select or (self.history.rows[0].checkpoint_id if self.history.rows else None)
        if target and self.pane.move_to(target):
            row = self.pane.get_item(target)
            if row is not None:
                self.show_row(row)
        self.compare.refresh_tree()

    def _poll_status(self) -> None:
        if self.progress:  # a replay reloads when it ends
            return
        # A check still loading new checkpoints goes on: a new one would cancel it.
        if any(
            w.node is self and w.group == "thread-status" and w.is_running for w in self.workers
        ):
            return
        self._check_status()

    @work(exclusive=True, group="thread-status", exit_on_error=False)
    async def _check_status(self) -> None:
        before = self.thread
        try:
            thread = await self.client.threads.get(self.thread_id)
        except ApiError:
            return  # the header keeps the last status; actions report their own errors
        self.thread = thread
        self.show_header()
        if before is not None and thread.updated_at != before.updated_at:
            selected = self.selected_row
            await self.reload_newer(select=selected.checkpoint_id if selected else None)

    # -- header -----------------------------------------------------------------------

    def show_header(self) -> None:
        text = Text("Thread ", style="bold")
        text.append_text(server_text(self.thread_id, style="bold"))
        if self.thread is not None:
            text.append("  ")
            text.append_text(status_text(self.thread.status))
            graph = self.thread.metadata.get("graph_id")
            if graph:
                text.append("  graph ", style="dim")
                text.append_text(server_text(graph))
        elif self.failure:
            text.append("  ")
            text.append_text(server_text(self.failure, style="bold red"))
        loaded = len(self.history.rows)
        more = "" if self.history.exhausted else "+"
        text.append(f"  {loaded}{more} checkpoints", style="dim")
        if self.progress:
            text.append("  ")
            text.append_text(server_text(self.progress, style="bold yellow"))
        self.query_one("#thread-header", Static).update(text)
        if self.thread is not None:
            self.chat.thread_loaded(self.thread)

    def set_progress(self, text: str) -> None:
        self.progress = text
        self.show_header()

    # -- selection --------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#history")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        # Held-down arrow keys move the cursor many rows a second: the state (a tree
        # that can hold thousands of list items) is drawn once the cursor rests.
        if self._show_timer is not None:
            self._show_timer.stop()
        self._show_timer = self.set_timer(SHOW_DELAY, self._show_selected)

    def _show_selected(self) -> None:
        self._show_timer = None
        row = self.selected_row
        if row is not None and row.checkpoint_id != self.checkpoint_view.checkpoint_id:
            self.show_row(row)

    def show_row(self, row: HistoryRow) -> None:
        self.checkpoint_view.show(row.state)
        self.compare.row_shown(row)

    def action_state(self) -> None:
        self.tabs.active = "tab-state"

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-chat":
            self.chat_controls.tab_shown()
            return
        if self.chat.has_focus_within and self.pane.display:
            self.pane.focus()  # keys typed next must not go to the hidden prompt
        self.compare.tab_shown(event.pane.id)

    # -- compare (compare.py) ---------------------------------------------------------

    def action_mark(self) -> None:
        self.compare.mark()

    def action_diff(self) -> None:
        self.compare.diff()

    def action_tree(self) -> None:
        self.compare.tree()

    @on(ForkTree.Jump)
    def _jump(self, event: ForkTree.Jump) -> None:
        self.compare.jump(event.checkpoint_id)

    # -- chat (chat.py) ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.chat_controls.allows(action)

    def action_cancel_run(self) -> None:
        self.chat_controls.cancel_run()

    def action_drop_queued(self) -> None:
        self.chat_controls.drop_queued()

    def action_chat(self) -> None:
        self.chat_controls.focus_prompt()

    def action_inspector(self) -> None:
        self.chat_controls.toggle_inspector()

    def action_toggle_history(self) -> None:
        self.chat_controls.toggle_history()

    def action_stream_modes(self) -> None:
        self.chat_controls.pick_stream_modes()

    def action_pick_assistant(self) -> None:
        self.chat_controls.pick_assistant()

    def action_new_thread(self) -> None:
        self.chat_controls.new_thread()

    @on(EventInspector.Opened)
    def _show_event(self, event: EventInspector.Opened) -> None:
        self.chat_controls.show_event(event.record)

    @on(ChatPane.RunEnded)
    def _run_ended(self, event: ChatPane.RunEnded) -> None:
        event.stop()
        self._refresh(None)

    # -- small verbs ------------------------------------------------------------------

    def action_back(self) -> None:
        # While a run streams or a message is queued, esc is bound to cancelling or
        # dropping instead (`ChatControls.allows`), except in read-only mode.
        self.dismiss(None)

    def action_refresh(self) -> None:
        selected = self.selected_row
        self._refresh(selected.checkpoint_id if selected else None)

    @work(exclusive=True, group="thread-refresh", exit_on_error=False)
    async def _refresh(self, select: str | None) -> None:
        await self.reload_newer(select=select)

    def action_raw(self) -> None:
        row = self.selected_row
        if row is not None:
            title = f"Checkpoint {row.checkpoint_id} (step {row.step})"
            self.app.push_screen(RawJsonScreen(row.state.raw(), title=title))

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield PaletteCommand(
            "Fork from this checkpoint…", "Edit the state as JSON, continue", self.action_fork
        )
        yield PaletteCommand(
            "Run from this checkpoint", "Replay with no input: a new branch", self.action_replay
        )
        yield PaletteCommand("Diff checkpoints", "Against the parent or the mark", self.action_diff)
        yield PaletteCommand("Fork tree", "Branches by parent id", self.action_tree)
        yield PaletteCommand("Export thread…", "Write the history as JSON", self.action_export)
        yield PaletteCommand(
            "Import thread…", "A thread export as a new thread", self.action_import
        )
        yield from self.chat_controls.palette_commands()

    def open_thread(self, thread_id: str) -> None:
        """Show another thread of this server (an imported one) in place of this one."""
        self.app.switch_screen(ThreadViewScreen(self.client, thread_id))

    def open_chat(self, thread_id: str, assistant: ChatAssistant) -> None:
        """Show another thread (a new one) in place of this one, ready to chat."""
        view = ThreadViewScreen(self.client, thread_id, chat=True, assistant=assistant)
        self.app.switch_screen(view)

    def action_copy_id(self) -> None:
        row = self.selected_row
        if row is not None:
            self.app.copy_to_clipboard(row.checkpoint_id)
            self.notify(f"Copied {row.checkpoint_id}", markup=False)


# -- route (routes.py) ------------------------------------------------------


def thread_view_screen(
    app: App[Any],
    argument: str | None,
    *,
    client: AgentServerClient | None = None,
    chat: bool = True,
    assistant: ChatAssistant | None = None,
) -> Screen[Any]:
    """`:thread <id>`: the thread view of that thread, on the Chat tab, ready to type.
    Screens that open it (`routes.build`) pass their `client`, `chat=False` for the State
    tab, and the `assistant` the chat runs."""
    thread_id = (argument or "").strip()
    if not thread_id:
        raise RouteUnavailable(":thread needs a thread id")
    client = client or getattr(app, "client", None)
    if client is None:
        raise RouteUnavailable("not connected to a server yet")
    return ThreadViewScreen(client, thread_id, chat=chat, assistant=assistant)
