"""The thread view's Timeline tab (`T`): a branch's supersteps as a waterfall.

A part the screen (screen.py) owns. It shows the branch of the selected checkpoint (else
the newest), from the thread's first checkpoint to the branch's newest, with `threads/timeline.build_timeline`: node spans from the runs streamed in
this session (the chat's event records), and the start of each run that resumed after a
pause or ran from an older checkpoint — read from the run records (`GET
/threads/{id}/runs/{run_id}`), once per run, so a pause is never counted as a node's time.
It shows at once with what it knows and again when the runs' starts arrive, and when the
thread's model calls traced on this machine are read: a bar each inside its node
(`threads.timeline_calls`).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from agent_tui.client import ApiError, NotFound
from agent_tui.threads.timeline import (
    TaskClock,
    TimelineStep,
    build_timeline,
    parse_time,
    runs_to_ask,
)
from agent_tui.threads.timeline_calls import place_model_calls
from agent_tui.traces.scoped_calls import NoTraceStore, read_scoped_calls
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.screens.thread_view.history_pane import HistoryPane
from agent_tui.tui.screens.thread_view.timeline_view import TimelineView
from agent_tui.tui.screens.thread_view.workers import start

if TYPE_CHECKING:
    from datetime import datetime

    from agent_tui.client import AgentServerClient
    from agent_tui.threads.history import HistoryRow, ThreadHistory
    from agent_tui.traces.calls import CallSummary
    from agent_tui.tui.agent_screen import AgentScreen

MAX_RUNS_ASKED = 20  # per refresh: a branch with more resumed runs shows the rest as `—`


class TimelineTab:
    """The Timeline tab over the loaded history."""

    def __init__(
        self,
        screen: AgentScreen[None],
        client: AgentServerClient,
        thread_id: str,
        history: ThreadHistory,
    ) -> None:
        self.screen = screen
        self.client = client
        self.thread_id = thread_id
        self.history = history
        self.run_starts: dict[str, datetime] = {}
        self._asked: set[str] = set()  # run ids asked for (found or not): asked once
        self._shown: list[HistoryRow] = []  # the branch drawn last
        self.model_calls: list[CallSummary] = []  # the thread's, as traced here

    def show(self) -> None:
        """`T`: the Timeline tab."""
        chats = self.screen.query(ChatPane)  # a chat not built yet has no focus
        pane = self.screen.query_one(HistoryPane)
        if chats and chats.first().has_focus_within and pane.display:
            pane.focus()  # a focused widget would bring its own tab back
        self.screen.query_one(TabbedContent).active = "tab-timeline"

    def refresh(self, selected: HistoryRow | None) -> None:
        """Draw the branch of `selected` (else the newest); ask for the runs' starts it
        still needs, then draw again."""
        branch = self._branch(selected)
        self._shown = branch
        self._draw(branch)
        missing = sorted(runs_to_ask(branch) - self._asked)[:MAX_RUNS_ASKED]
        if missing:
            start(self.screen, "thread-timeline", self._load_runs, branch, missing)
        start(self.screen, "thread-timeline-calls", self._load_model_calls, branch)

    @property
    def runs_pending(self) -> bool:
        """The branch drawn last still waits for a run's start (its times may change)."""
        return bool(runs_to_ask(self._shown) - self._asked)

    def _branch(self, selected: HistoryRow | None) -> list[HistoryRow]:
        # The whole branch the cursor is on, to its newest checkpoint: a run made while
        # the view is open, or older pages loaded, add to it wherever the cursor rests.
        end = self.history.branch_end(selected.checkpoint_id) if selected else None
        ids = self.history.lineage_ids(end)
        rows = {row.checkpoint_id: row for row in self.history.rows}
        return [rows[i] for i in ids if i in rows]

    def steps(self, selected: HistoryRow | None = None) -> list[TimelineStep]:
        """The supersteps of `selected`'s branch (else the newest) with their times, as
        the tab shows them (the graph pane times its nodes from the same)."""
        return self._steps(self._branch(selected))

    def _steps(self, branch: list[HistoryRow]) -> list[TimelineStep]:
        clock = TaskClock()
        chats = self.screen.query(ChatPane)  # the runs that streamed here, if any did
        records = chats.first().inspector.records if chats else []
        for record in list(records):
            try:
                data = json.loads(record.data)
            except ValueError:
                continue
            clock.observe(record.event, data)
        return build_timeline(branch, clock.by_checkpoint, self.run_starts)

    def _draw(self, branch: list[HistoryRow]) -> None:
        steps = self._steps(branch)
        calls = place_model_calls(steps, self.model_calls)
        self.screen.query_one(TimelineView).show(steps, calls)

    async def _load_model_calls(self, branch: list[HistoryRow]) -> None:
        """The thread's traced model calls (this machine's trace store), drawn inside
        their nodes; none when nothing was traced here."""
        try:
            found = await asyncio.to_thread(read_scoped_calls, self.thread_id, None)
        except NoTraceStore:
            return
        self.model_calls = [call for call in found.calls if call.run_type == "llm"]
        self._draw(branch)

    async def _load_runs(self, branch: list[HistoryRow], run_ids: list[str]) -> None:
        found = await asyncio.gather(
            *(self.client.runs.get(self.thread_id, run_id) for run_id in run_ids),
            return_exceptions=True,
        )
        for run_id, run in zip(run_ids, found, strict=True):
            if isinstance(run, NotFound):
                self._asked.add(run_id)  # deleted with its record: that step shows `—`
            elif isinstance(run, ApiError):
                continue  # the network: `—` for now, asked again at the next refresh
            elif isinstance(run, BaseException):
                raise run
            else:
                self._asked.add(run_id)
                started = parse_time(run.created_at.isoformat()) if run.created_at else None
                if started is not None:
                    self.run_starts[run_id] = started
        self._draw(branch)
