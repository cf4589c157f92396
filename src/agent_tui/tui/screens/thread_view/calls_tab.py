"""The thread view's Calls tab (`C`): the model and tool calls of the selected checkpoint's
run, from this machine's trace store.

A part the screen (screen.py) owns. The calls are of the run that wrote the selected
checkpoint (`metadata.run_id`); a checkpoint no run wrote (a person's `update` or
`fork`), or no checkpoint selected, shows the whole thread's; a run with no trace here
while the thread has others shows the whole thread's too, and says so. With no trace of
the thread at all, the tab says why (`traces.untraced`: whether agent-tui started this
server, with tracing on). The store is read in a worker thread, columns only
(`traces.scoped_calls`); `enter` reads one call whole and shows it (`CallDetailScreen`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import TabbedContent

from agent_tui.text.short_ids import short_thread_id
from agent_tui.traces.scoped_calls import NoTraceStore, ScopedCalls, read_call, read_scoped_calls
from agent_tui.traces.totals import configured_prices
from agent_tui.traces.untraced import why_no_traces
from agent_tui.tui.modals.call_detail import CallDetailScreen
from agent_tui.tui.screens.thread_view.calls_view import FIRST, CallsView
from agent_tui.tui.screens.thread_view.workers import start

if TYPE_CHECKING:
    from agent_tui.threads.history import HistoryRow
    from agent_tui.traces.calls import CallSummary
    from agent_tui.tui.agent_screen import AgentScreen

TAB = "tab-calls"


def scope_line(thread_id: str, row: HistoryRow | None) -> Text:
    """Whose calls the tab lists for the selected checkpoint `row`."""
    if row is None:
        return Text(f"Calls of thread {short_thread_id(thread_id)} (no checkpoint selected)")
    step = "—" if row.step is None else str(row.step)
    if row.run_id:
        return Text(f"Calls of run {short_thread_id(row.run_id)}, which wrote step {step}")
    source = row.source or "a person"
    return Text(f"Calls of the whole thread: step {step} was written by no run ({source})")


def _read(thread_id: str, run_id: str | None, first: int | None = None) -> ScopedCalls:
    if first is not None:
        return read_scoped_calls(thread_id, run_id, first=first)
    return read_scoped_calls(thread_id, run_id, prices=configured_prices())


class CallsTab:
    """The Calls tab of one thread."""

    def __init__(self, screen: AgentScreen[None], thread_id: str) -> None:
        self.screen = screen
        self.thread_id = thread_id
        self._shown_for: tuple[str | None] | None = None  # the run shown last (None: thread)

    @property
    def view(self) -> CallsView:
        return self.screen.query_one(CallsView)

    @property
    def active(self) -> bool:
        return self.screen.query_one(TabbedContent).active == TAB

    def show(self) -> None:
        """`C`: the Calls tab, its table focused."""
        self.screen.query_one(TabbedContent).active = TAB

    def tab_shown(self, row: HistoryRow | None) -> None:
        """The tab came into view (mounted): read the calls afresh (a run grows)."""
        self.refresh(row, again=True)
        # Once painted: a focus change redraws the footer's keys, which held back the
        # first frame of the tab.
        self.view.call_after_refresh(self.view.table.focus)

    def row_shown(self, row: HistoryRow | None) -> None:
        """Another checkpoint is selected: its run's calls, if the tab is in view."""
        if self.active and self._ready:
            self.refresh(row)

    @property
    def _ready(self) -> bool:
        return bool(self.screen.query(CallsView)) and self.view.is_mounted

    def refresh(self, row: HistoryRow | None, *, again: bool = False) -> None:
        run_id = row.run_id if row is not None else None
        if not again and self._shown_for == (run_id,):
            return  # another checkpoint of the same run
        self._shown_for = (run_id,)
        scope = scope_line(self.thread_id, row)
        self.view.show_reading(scope)
        start(self.screen, "thread-calls", self._load, run_id, scope)

    async def _why_no_traces(self) -> str:
        app = self.screen.agent_app
        # Off the event loop: for a server this app did not start, notes on disk say
        # whether a local control plane deployed it tracing here.
        return why_no_traces(await asyncio.to_thread(lambda: app.server_tracing))

    async def _load(self, run_id: str | None, scope: Text) -> None:
        try:
            # The first screenful at once, then the rest and the totals (5,000 calls read
            # whole took most of the tab's opening).
            scoped = await asyncio.to_thread(_read, self.thread_id, run_id, FIRST)
        except NoTraceStore as error:
            why = await self._why_no_traces()
            self.view.show_absent(scope, f"No traces here: {error}.\n\n{why}")
            return
        if not scoped.thread_traced:
            self.view.show_absent(scope, await self._why_no_traces())
            return
        if run_id is not None and not scoped.run_traced:
            scope = Text(
                f"Run {short_thread_id(run_id)} has no trace here (it ran before tracing was"
                " on, or was pruned): the whole thread's calls"
            )
            run_id = None
            scoped = await asyncio.to_thread(_read, self.thread_id, None, FIRST)
        self.view.show(scoped, scope)
        # The rest once the first rows are on screen: read beside the painting, it held
        # the interpreter lock the painting needed, and the first rows came late.
        painted = asyncio.Event()
        self.view.call_after_refresh(painted.set)
        await painted.wait()
        self.view.show_all(await asyncio.to_thread(_read, self.thread_id, run_id))

    def open(self, call: CallSummary) -> None:
        """`enter` on a call: the call whole."""
        start(self.screen, "thread-call", self._open, call)

    async def _open(self, call: CallSummary) -> None:
        try:
            run = await asyncio.to_thread(read_call, call.id)
        except NoTraceStore as error:
            run, why = None, str(error)
        else:
            why = "it is no longer in the trace store (pruned)"
        if run is None:
            self.screen.notify(f"Cannot show the call: {why}", severity="warning", markup=False)
            return
        await self.screen.app.push_screen(CallDetailScreen(run))
