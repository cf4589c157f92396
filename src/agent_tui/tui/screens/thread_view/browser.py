"""The thread view's history: the header, the history pane and the selected checkpoint's state.

A part the screen (screen.py) owns. It opens the thread with one request for the newest
page (`ThreadSync`), pages older checkpoints in as the cursor nears the end of the pane
(`HistoryPane.NeedMore`, passed on by the screen), brings in new checkpoints at the top
when the thread changes on the server (a timer polls its status), and draws the state of
the checkpoint under the cursor once the cursor rests. What else follows the selection
or the history (the diff, the fork tree, the chat) the screen hears through the callbacks
it passed in.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agent_tui.client import ApiError, NotFound, ValidationFailed
from agent_tui.threads.subgraph_state import SubgraphHistory, subgraph_frames
from agent_tui.tui.gc_tuning import trim_heap
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.thread_view.checkpoint_view import CheckpointView
from agent_tui.tui.screens.thread_view.header import ThreadHeader
from agent_tui.tui.screens.thread_view.history_pane import HistoryPane
from agent_tui.tui.screens.thread_view.workers import start

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.timer import Timer

    from agent_tui.client.models import Thread, ThreadState
    from agent_tui.threads.history import HistoryRow
    from agent_tui.tui.agent_screen import AgentScreen
    from agent_tui.tui.screens.thread_view.sync import ThreadSync

# Seconds the cursor rests on a row before its state is drawn: keys pressed in a burst
# (page-downs ~0.1 s apart) move the cursor at once and the state follows once they stop
# (drawing it meanwhile is a layout of the whole screen that the next key waited behind).
SHOW_DELAY = 0.15
LOADING_DELAY = 0.25  # seconds without the first rows before the pane says it is loading
MIN_FIRST_ROWS = 20  # checkpoints asked for first, at least (else as many as the terminal is high)
SUBGRAPH_CHECKPOINTS = 50  # of each subgraph, listed under the checkpoint whose task ran it
# Seconds after a page came in: the heap its let-go states freed is handed back. Without
# it the process kept 15-30 MB more after paging through 5,000 growing checkpoints, heap
# freed but not returned (`benchmarks/thread_view.py`).
TRIM_DELAY = 0.5


class Keep:
    """`reload_newer`'s word for "the row selected once the checkpoints are in"."""


KEEP = Keep()


class HistoryBrowser:
    """Loading, paging and polling the thread, and showing the selected checkpoint."""

    def __init__(
        self,
        screen: AgentScreen[None],
        sync: ThreadSync,
        *,
        row_shown: Callable[[HistoryRow], None],
        rows_changed: Callable[[], None],
        thread_shown: Callable[[Thread], None],
    ) -> None:
        """`row_shown`: a checkpoint's state was drawn; `rows_changed`: checkpoints
        came in; `thread_shown`: the thread (its metadata, its status) was drawn."""
        self.screen = screen
        self.sync = sync
        self.row_shown = row_shown
        self.rows_changed = rows_changed
        self.thread_shown = thread_shown
        self.progress = ""  # a long action (replay, export) in the header
        self._show_timer: Timer | None = None
        self._trim_timer: Timer | None = None
        self._opening: asyncio.Future[list[HistoryRow]] | None = None

    @property
    def pane(self) -> HistoryPane:
        return self.screen.query_one(HistoryPane)

    def _left(self) -> bool:
        """The view was left while a worker of it waited: its widgets go before its
        workers are cancelled (and a failed worker's traceback would hold the view)."""
        return not self.screen.query(HistoryPane)

    @property
    def checkpoint_view(self) -> CheckpointView:
        return self.screen.query_one(CheckpointView)

    @property
    def selected_row(self) -> HistoryRow | None:
        return self.pane.selected_item

    # -- loading ----------------------------------------------------------------------

    def ask_early(self, first_rows: int) -> None:
        """Ask for the thread and its newest `first_rows` checkpoints now, while the view
        is still being built: the server answers while the widgets mount (`open` shows
        the answer)."""
        if self._opening is None:
            self._opening = asyncio.ensure_future(
                self.sync.open(first_rows=max(first_rows, MIN_FIRST_ROWS))
            )

    def forget_early(self) -> None:
        """The view goes before it opened: the early request goes too."""
        opening, self._opening = self._opening, None
        if opening is not None and not opening.done():
            opening.cancel()
        elif opening is not None and not opening.cancelled():
            opening.exception()  # read: an error nobody shows is no warning at exit

    async def first_rows(self, wait: float) -> None:
        """Until the early request (`ask_early`) is answered, `wait` seconds at most: the
        screen waits for it before its first paint, so that it paints once, with the
        rows and the newest state, rather than empty and again a moment later."""
        opening = self._opening
        if opening is not None and not opening.done():
            await asyncio.wait({opening}, timeout=wait)

    def open(self) -> None:
        """Show the first rows: now if they are in (drawn with the screen's first
        paint), else once they come, with a loading indicator if they are slow."""
        opening = self._opening
        if opening is not None and opening.done():
            self._opened(opening)
        else:
            start(self.screen, "thread-open", self._open)

    async def _open(self) -> None:
        # A first screenful, shown at once; the rest of the page and the next ones come
        # in behind it (the pane asks for more while the cursor is within a page of its
        # end). The loading indicator only if the server is slow to answer.
        waiting = [True]  # read when the timer's callback runs: that can be after `stop()`

        def spin() -> None:
            if waiting[0]:
                self.pane.loading = True

        spinner = self.screen.set_timer(LOADING_DELAY, spin)
        self.ask_early(self.screen.app.size.height)
        opening = self._opening
        assert opening is not None
        try:
            await asyncio.wait({opening})
        finally:
            waiting[0] = False
            spinner.stop()
            if self.pane.loading:
                self.pane.loading = False
        self._opened(opening)

    def _opened(self, opening: asyncio.Future[list[HistoryRow]]) -> None:
        """Draw the answer to the first request (`opening` is done): the header, the
        rows, the newest checkpoint's state; or why the thread could not be shown."""
        sync = self.sync
        if opening.cancelled():
            return  # the view was left
        try:
            rows = opening.result()
        except (NotFound, ValidationFailed) as error:
            reason = "no such thread" if isinstance(error, NotFound) else "not a thread id"
            sync.failure = f"Thread {sync.thread_id} not found on this server ({reason})."
            self.screen.notify(sync.failure, title="Thread", severity="error", markup=False)
            self.show_header()
            return
        except ApiError as error:
            sync.failure = "could not load the thread"
            self.screen.report_error(error, doing="load the thread")
            self.show_header()
            return
        self.show_header()
        self.pane.set_rows(rows, has_more=not sync.history.exhausted)
        if rows:
            self.show_row(rows[0])
        else:
            self.checkpoint_view.query_one("#checkpoint-summary", Static).update(
                Text("This thread has no checkpoints yet.", style="dim")
            )

    def load_more(self) -> None:
        """The cursor nears the end of the pane: the next (older) page."""
        start(self.screen, "thread-more", self._load_more)

    async def _load_more(self) -> None:
        try:
            rows, completed = await self.sync.load_more()
        except ApiError as error:
            self.screen.report_error(error, doing="load older checkpoints")
            self.pane.has_more = False
            return
        for row in completed:
            self.pane.update_item(row)
        self.pane.append_rows(rows, has_more=not self.sync.history.exhausted)
        self.show_header()  # how many checkpoints are in
        self.rows_changed()
        if self._trim_timer is None:
            self._trim_timer = self.screen.set_timer(TRIM_DELAY, self._trim)

    def _trim(self) -> None:
        self._trim_timer = None
        trim_heap()

    async def reload_newer(self, select: str | Keep | None) -> None:
        """Bring in checkpoints made since loading (at the top) and select `select`, or
        the newest checkpoint when None, or (`KEEP`) the row selected when they are in:
        a fork made meanwhile selected its own, which a selection read before the load
        would undo."""
        history = self.sync.history
        try:
            fresh = await self.sync.load_newer()
        except ApiError as error:
            self.screen.report_error(error, doing="load the new checkpoints")
            return
        if self._left():
            return
        self.show_header()
        if isinstance(select, Keep):
            selected = self.selected_row
            select = selected.checkpoint_id if selected else None
        if fresh:
            self.pane.set_rows(history.rows, has_more=not history.exhausted)
        target = select or (history.rows[0].checkpoint_id if history.rows else None)
        if target and self.pane.move_to(target):
            row = self.pane.get_item(target)
            if row is not None:
                self.show_row(row)
        self.rows_changed()

    def refresh(self) -> None:
        """Reload the newer checkpoints, keeping the selection (`r`)."""
        self.reload(KEEP)

    def reload(self, select: str | Keep | None) -> None:
        """`reload_newer` in a worker (a run ended, `r`)."""
        start(self.screen, "thread-refresh", self.reload_newer, select)

    def poll(self) -> None:
        """The status timer: check the thread for a change on the server."""
        if self.progress:  # a replay reloads when it ends
            return
        # A check still loading new checkpoints goes on: a new one would cancel it.
        if any(
            w.node is self.screen and w.group == "thread-status" and w.is_running
            for w in self.screen.workers
        ):
            return
        start(self.screen, "thread-status", self._check_status)

    async def _check_status(self) -> None:
        try:
            changed = await self.sync.changed_on_server()
        except ApiError:
            return  # the header keeps the last status; actions report their own errors
        if self._left():
            return
        self.show_header()
        if changed:
            await self.reload_newer(select=KEEP)

    # -- header -----------------------------------------------------------------------

    def show_header(self) -> None:
        self.screen.query_one(ThreadHeader).show(self.sync, self.progress)
        if self.sync.thread is not None:
            self.thread_shown(self.sync.thread)

    def set_progress(self, text: str) -> None:
        self.progress = text
        self.show_header()

    # -- selection --------------------------------------------------------------------

    def highlighted(self) -> None:
        """The cursor moved. Held-down arrow keys move it many rows a second: the state
        (a tree that can hold thousands of list items) is drawn once the cursor rests."""
        if self._show_timer is not None:
            self._show_timer.stop()
        self._show_timer = self.screen.set_timer(SHOW_DELAY, self._show_selected)

    def _show_selected(self) -> None:
        self._show_timer = None
        row = self.selected_row
        if row is not None and row.checkpoint_id != self.checkpoint_view.checkpoint_id:
            self.show_row(row)

    def show_raw(self) -> None:
        """The selected checkpoint whole, as JSON (`y`); its state read again when it
        was let go (`ThreadHistory(keep_states=)`)."""
        row = self.selected_row
        if row is not None:
            start(self.screen, "thread-raw", self._show_raw, row)

    async def _read_state(self, row: HistoryRow) -> ThreadState | None:
        """The row's whole state, read again if it was let go; None (said) on an error,
        or when the view was left meanwhile."""
        try:
            state = await self.sync.history.load_state(row.checkpoint_id)
        except ApiError as error:
            self.screen.report_error(error, doing="read the checkpoint")
            return None
        return None if self._left() else state

    async def _show_raw(self, row: HistoryRow) -> None:
        if (state := await self._read_state(row)) is None:
            return
        title = f"Checkpoint {row.checkpoint_id} (step {row.step})"
        self.screen.app.push_screen(RawJsonScreen(state.raw(), title=title))

    def show_row(self, row: HistoryRow) -> None:
        state = self.sync.history.state(row.checkpoint_id)
        if state is None:
            # Let go while the cursor was far away (memory stays flat): read it again.
            start(self.screen, "thread-state", self._read_and_show, row)
            return
        self._show(row, state)

    async def _read_and_show(self, row: HistoryRow) -> None:
        if (state := await self._read_state(row)) is None:
            return
        selected = self.selected_row
        if selected is not None and selected.checkpoint_id == row.checkpoint_id:
            self._show(row, state)

    def _show(self, row: HistoryRow, state: ThreadState) -> None:
        self.checkpoint_view.show(state)
        self.row_shown(row)
        if state.next:
            # A pending task may run a subgraph: its own state (where it stopped, with
            # what values) comes only from the state read with `subgraphs=true` (the
            # history does not say which tasks are subgraphs).
            start(self.screen, "thread-subgraphs", self._show_subgraphs, row)
        if row.subgraph_namespaces:
            start(self.screen, "thread-subgraph-history", self._show_subgraph_history, row)

    async def _show_subgraph_history(self, row: HistoryRow) -> None:
        """The checkpoints the subgraphs of this checkpoint's tasks wrote, each in its own
        namespace (the thread's history lists only the top graph's)."""
        histories: list[SubgraphHistory] = []
        for task, namespace in row.subgraph_namespaces.items():
            try:
                states = await self.sync.client.threads.get_history(
                    self.sync.thread_id, limit=SUBGRAPH_CHECKPOINTS, checkpoint_ns=namespace
                )
            except ApiError:
                continue  # the task still says where it ran (State → Tasks)
            if states:
                histories.append(SubgraphHistory(task, namespace, tuple(states)))
        self.checkpoint_view.show_subgraph_history(row.checkpoint_id, histories)

    async def _show_subgraphs(self, row: HistoryRow) -> None:
        try:
            state = await self.sync.client.threads.get_state(
                self.sync.thread_id, row.checkpoint_id, subgraphs=True
            )
        except ApiError:
            return  # the checkpoint's own state is shown already
        # Drawn again only when there is something to add: a redraw resets the view.
        if self.checkpoint_view.checkpoint_id == row.checkpoint_id and subgraph_frames(state):
            self.checkpoint_view.show(state)
