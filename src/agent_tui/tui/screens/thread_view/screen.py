"""The thread view — the debugger: history, the state at a checkpoint, diffs, the fork tree.

Left, the history (history_pane.py): a row per checkpoint, newest first, paged in as the
cursor nears the end. Right, tabs: the Chat (`ChatPane`), the selected checkpoint's state,
a diff (`d`), the fork tree (`t`), the timeline (`T`) and the calls (`C`); every tab but
the one opened on is built when first needed (lazy_tabs.py), as is the graph pane (`v`).
The screen's first paint waits a moment for the first rows (one paint, not two). A timer
refreshes the header; a change on the server brings new checkpoints in at the top.

The screen composes the widgets and owns one plain object per piece of work; it holds
the key bindings (their ids are the keymap's), passes each key and widget message to the
part it concerns, and tells each part what another did:

- `ThreadSync` (sync.py, headless): the thread and its loaded history;
- `HistoryBrowser` (browser.py): opening, paging, polling, the header, the selection;
- `Comparison` (compare.py): mark, diff, the fork tree;
- `TimeTravel` (actions.py): fork, replay, export, import;
- `TimelineTab` (timeline_tab.py): the waterfall of the selected branch (`T`);
- `CallsTab` (calls_tab.py): the traced model and tool calls of the selected run (`C`);
- `ChatControls` (chat.py): the chat keys that work wherever the focus is;
- `LiveGraph` (graph_live.py): the graph pane (`v`), the run lit on the graph.

`enter` on a thread opens this screen on the State tab; `:thread <id>`
(`route.thread_view_screen`) opens it on the Chat tab with the prompt focused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import TabbedContent, TabPane

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client.models import Thread
from agent_tui.store.tree import thread_mentions
from agent_tui.text.short_ids import short_thread_id
from agent_tui.threads.history import HistoryRow
from agent_tui.tui import routes
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.chat.event_inspector import EventInspector
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.screens.thread_view.actions import TimeTravel
from agent_tui.tui.screens.thread_view.browser import HistoryBrowser
from agent_tui.tui.screens.thread_view.calls_tab import CallsTab
from agent_tui.tui.screens.thread_view.calls_view import CallsView
from agent_tui.tui.screens.thread_view.chat import CHAT_BINDINGS, ChatControls
from agent_tui.tui.screens.thread_view.checkpoint_view import CheckpointView
from agent_tui.tui.screens.thread_view.compare import Comparison
from agent_tui.tui.screens.thread_view.fork_tree import ForkTree
from agent_tui.tui.screens.thread_view.graph_live import LiveGraph
from agent_tui.tui.screens.thread_view.graph_pane import GraphPane
from agent_tui.tui.screens.thread_view.header import ThreadHeader
from agent_tui.tui.screens.thread_view.history_pane import HistoryPane
from agent_tui.tui.screens.thread_view.lazy_tabs import LazyPane, ThreadTabs
from agent_tui.tui.screens.thread_view.palette import THREAD_VIEW_COMMANDS
from agent_tui.tui.screens.thread_view.sync import ThreadSync
from agent_tui.tui.screens.thread_view.timeline_tab import TimelineTab
from agent_tui.tui.screens.thread_view.timeline_view import TimelineView
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.diff_view import DiffView
from agent_tui.tui.widgets.footer import KeysFooter

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_tui.client import AgentServerClient

STATUS_INTERVAL = 3.0  # seconds between status refreshes
PAGE_SIZE = 100
NARROW_FOR_HISTORY = 100  # columns: below, a view opened on the chat hides the history
FIRST_PAINT_WAIT = 0.2  # seconds the first paint waits for the first rows (then: without)


class ThreadViewScreen(AgentScreen[None]):
    CSS_PATH = "screen.tcss"
    HELP_TITLE = "thread"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="thread_view.back"),
        Binding("f", "fork", "Fork", id="thread_view.fork"),
        Binding("p", "replay", "Run from here", id="thread_view.replay"),
        # The rest stay out of the footer (80 columns): `?` lists them.
        Binding("m", "mark", "Mark", show=False, id="thread_view.mark"),
        Binding("d", "diff", "Diff", show=False, id="thread_view.diff"),
        Binding("t", "tree", "Fork tree", show=False, id="thread_view.tree"),
        Binding("T", "timeline", "Timeline", show=False, id="thread_view.timeline"),
        Binding("C", "calls", "Calls", show=False, id="thread_view.calls"),
        Binding("s", "state", "State", show=False, id="thread_view.state"),
        Binding("x", "export", "Export", show=False, id="thread_view.export"),
        Binding("i", "import", "Import", show=False, id="thread_view.import"),
        Binding("r", "refresh", "Refresh", show=False, id="thread_view.refresh"),
        Binding("y", "raw", "Raw JSON", show=False, id="thread_view.raw"),
        Binding("c", "copy_id", "Copy id", show=False, id="thread_view.copy_id"),
        Binding("R", "runs", "Runs", show=False, id="thread_view.runs"),
        Binding("M", "memory", "Memory (Store)", show=False, id="thread_view.memory"),
        Binding("v", "graph", "Graph", show=False, id="thread_view.graph"),
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
        self.status_interval = status_interval
        self.open_on_chat = chat
        self._styled = False  # see `_resumed`
        self.chat_assistant = assistant
        if chat:
            # What the screen focuses when it shows (a class variable in Textual, read
            # through the instance).
            setattr(self, "AUTO_FOCUS", "#prompt")  # noqa: B010
        # The parts, each over its own widgets; the screen passes on keys and messages
        # and tells each part what the others did.
        self.sync = ThreadSync(client, thread_id, page_size=page_size)
        self.history = self.sync.history
        self.browser = HistoryBrowser(
            self,
            self.sync,
            row_shown=self._row_shown,
            rows_changed=self._rows_changed,
            thread_shown=self._thread_shown,
        )
        self.compare = Comparison(self, self.history, show_row=self.browser.show_row)
        self.chat_controls = ChatControls(self, client, open_chat=self.open_chat)
        self.time_travel = TimeTravel(self, self.sync, self.browser, open_thread=self.open_thread)
        self.timeline = TimelineTab(self, client, thread_id, self.history)
        self.calls = CallsTab(self, thread_id)
        self.live_graph = LiveGraph(
            self, client, self.sync, self.timeline, self.chat_controls.ready
        )

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The server answers while the widgets below mount.
        self.browser.ask_early(self.app.size.height)
        yield Breadcrumb()
        yield ThreadHeader(id="thread-header")
        with Horizontal(id="thread-body"):
            # More is asked for while the cursor is within a page of the end: the next
            # page is in before page-down or `end` gets there.
            yield HistoryPane(threshold=self.sync.history.page_size, id="history")
            yield GraphPane(self.live_graph, id="graph-pane")
            initial = "tab-chat" if self.open_on_chat else "tab-state"
            with ThreadTabs(id="thread-tabs", initial=initial):
                if self.open_on_chat:
                    with TabPane("Chat", id="tab-chat"):
                        yield self._make_chat()
                else:  # built when first needed (chat.py)
                    yield LazyPane("Chat", self._make_chat, id="tab-chat")
                with TabPane("State", id="tab-state"):
                    yield CheckpointView(id="checkpoint")
                yield LazyPane("Diff", lambda: DiffView(id="diff"), id="tab-diff")
                yield LazyPane("Fork tree", lambda: ForkTree(id="fork-tree"), id="tab-tree")
                yield LazyPane("Timeline", lambda: TimelineView(id="timeline"), id="tab-timeline")
                yield LazyPane("Calls", lambda: CallsView(id="calls"), id="tab-calls")
        yield KeysFooter()

    @property
    def pane(self) -> HistoryPane:
        return self.query_one(HistoryPane)

    def _make_chat(self) -> ChatPane:
        chat = ChatPane(
            self.client,
            self.thread_id,
            assistant=self.chat_assistant,
            load=self.open_on_chat,
            id="chat",
        )
        if self.sync.thread is not None:
            chat.thread_loaded(self.sync.thread)  # built after the thread was read
        return chat

    @property
    def chat(self) -> ChatPane:
        """The chat pane, built now if it was not (`chat_controls.ready()`: mounted)."""
        return self.chat_controls.chat

    @property
    def checkpoint_view(self) -> CheckpointView:
        return self.query_one(CheckpointView)

    @property
    def diff_view(self) -> DiffView:
        return self.tabs.content("tab-diff", DiffView)  # built now if it was not

    @property
    def fork_tree(self) -> ForkTree:
        return self.tabs.content("tab-tree", ForkTree)

    @property
    def tabs(self) -> ThreadTabs:
        return self.query_one(ThreadTabs)

    @property
    def thread(self) -> Thread | None:
        return self.sync.thread

    @property
    def failure(self) -> str | None:
        return self.sync.failure

    @property
    def selected_row(self) -> HistoryRow | None:
        return self.browser.selected_row

    # -- the parts, told of each other ------------------------------------------------

    def _row_shown(self, row: HistoryRow) -> None:
        self.compare.row_shown(row)
        self.live_graph.row_shown(row)
        self.calls.row_shown(row)

    def _rows_changed(self) -> None:
        self.compare.refresh_tree()
        if self.tabs.active == "tab-timeline":
            self.refresh_timeline()

    def refresh_timeline(self) -> None:
        self.timeline.refresh(self.selected_row)

    def _thread_shown(self, thread: Thread) -> None:
        if (chat := self.chat_controls.built) is not None:
            chat.thread_loaded(thread)
        self.live_graph.thread_shown(thread)

    # -- history (browser.py) ---------------------------------------------------------

    async def on_mount(self) -> None:
        selection = self.agent_app.selection
        if selection is not None:
            selection.update(thread=short_thread_id(self.thread_id))
        if not self.open_on_chat:
            self.pane.focus()
        elif self.app.size.width < NARROW_FOR_HISTORY:
            # A narrow terminal opened on the chat: the chat takes the width
            # (`ctrl+b` shows the history pane).
            self.query_one("#history").display = False
        # The first layout and paint come once this returns: with the rows and the
        # newest state if they come in time (not empty, then all again a moment later).
        await self.browser.first_rows(FIRST_PAINT_WAIT)
        self.browser.show_header()
        self.browser.open()
        if self.status_interval > 0:
            self.set_interval(self.status_interval, self.browser.poll)

    @on(events.ScreenResume)
    def _resumed(self, event: events.ScreenResume) -> None:
        # Runs before Textual's own handler. Pushed, the screen was styled as its widgets
        # mounted: styling all of them again on its first showing cost a pass over the
        # screen and drew the state's tree once more (its lines are dropped on a restyle).
        if not self._styled:
            self._styled = True
            event.refresh_styles = False

    def on_unmount(self) -> None:
        self.browser.forget_early()
        selection = self.agent_app.selection
        # Not when the view that replaced this one (`n`) already named its own thread.
        if selection is not None and selection.thread == short_thread_id(self.thread_id):
            selection.update(thread=None)

    @on(HistoryPane.NeedMore)
    def _need_more(self, event: HistoryPane.NeedMore) -> None:
        event.stop()
        # Once what is in is painted: the rows behind the first screenful must not
        # hold up its first paint.
        self.call_after_refresh(self.browser.load_more)

    @on(HistoryPane.RowHighlighted)
    def _highlighted(self, event: HistoryPane.RowHighlighted) -> None:
        self.browser.highlighted()

    def action_refresh(self) -> None:
        self.browser.refresh()

    def action_state(self) -> None:
        self.tabs.active = "tab-state"

    def action_timeline(self) -> None:
        self.timeline.show()

    def action_calls(self) -> None:
        self.calls.show()

    async def action_graph(self) -> None:
        await self.live_graph.toggle()

    async def action_runs(self) -> None:
        """`R`: the thread's runs (`screens/thread_runs.py`)."""
        await self.agent_app.open_resource("runs", self.thread_id)

    def action_memory(self) -> None:
        """`M`: the Store namespaces that mention this thread, its assistant or its graph
        (`screens/store/browser.py`)."""
        metadata = self.sync.thread.metadata if self.sync.thread else {}
        mentions = thread_mentions(self.thread_id, metadata)
        self.app.push_screen(routes.build(self.app, "store", client=self.client, mentions=mentions))

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        await self.tabs.ready(event.pane.id)  # a tab shown for the first time: built
        if event.pane.id == "tab-chat":
            self.chat_controls.tab_shown()
            return
        if event.pane.id == "tab-timeline":
            self.refresh_timeline()
        if event.pane.id == "tab-calls":
            self.calls.tab_shown(self.selected_row)
            return
        chat = self.chat_controls.built
        if chat is not None and chat.has_focus_within and self.pane.display:
            self.pane.focus()  # keys typed next must not go to the hidden prompt
        self.compare.tab_shown(event.pane.id)

    # -- time travel (actions.py) -----------------------------------------------------

    def action_fork(self) -> None:
        self.time_travel.fork()

    def action_replay(self) -> None:
        self.time_travel.replay()

    def action_export(self) -> None:
        self.time_travel.export()

    def action_import(self) -> None:
        self.time_travel.import_thread()

    # -- compare (compare.py) ---------------------------------------------------------

    def action_mark(self) -> None:
        self.compare.mark()

    def action_diff(self) -> None:
        self.compare.diff()

    def action_tree(self) -> None:
        self.compare.tree()

    @on(CallsView.Opened)
    def _open_call(self, event: CallsView.Opened) -> None:
        self.calls.open(event.call)

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

    async def action_inspector(self) -> None:
        await self.chat_controls.toggle_inspector()

    async def action_breakpoints(self) -> None:
        await self.chat_controls.breakpoints(self.sync.assistant_id)

    def action_focus_history(self) -> None:
        self.chat_controls.focus_history()

    async def action_toggle_history(self) -> None:
        await self.chat_controls.toggle_history()

    def action_stream_modes(self) -> None:
        self.chat_controls.pick_stream_modes()

    async def action_pick_assistant(self) -> None:
        await self.chat_controls.pick_assistant()

    def action_new_thread(self) -> None:
        self.chat_controls.new_thread()

    @on(EventInspector.Opened)
    def _show_event(self, event: EventInspector.Opened) -> None:
        self.chat_controls.show_event(event.record)

    @on(ChatPane.RunEnded)
    def _run_ended(self, event: ChatPane.RunEnded) -> None:
        event.stop()
        self.browser.reload(None)
        self.live_graph.run_ended()

    # -- small verbs ------------------------------------------------------------------

    def action_back(self) -> None:
        # While a run streams or a message is queued, esc is bound to cancelling or
        # dropping instead (`ChatControls.allows`), except in read-only mode.
        self.dismiss(None)

    def action_raw(self) -> None:
        self.browser.show_raw()

    def palette_commands(self) -> Iterable[PaletteCommand]:
        for name, help_text, method in THREAD_VIEW_COMMANDS:
            yield PaletteCommand(name, help_text, getattr(self, method))
        yield from self.chat_controls.palette_commands()

    def open_crons(self) -> None:
        """The crons whose runs go to this thread, over this view (`esc` comes back)."""
        self.app.push_screen(routes.build(self.app, "crons", self.thread_id))

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
