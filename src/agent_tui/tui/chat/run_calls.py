"""What the chat says of a run's model and tool calls (issue #34): a line per call, live,
while the run streams the ``events`` mode (`f5` asks for it for the next runs, off by
default), and a quiet line of totals once the run has ended — calls, tokens, model time
against wall time, cost when the config prices the model.

The totals come from the trace store when the run was traced here (a local server
agent-tui started traces to its collector by default): its last pieces reach the store
a moment after the stream ends, so a worker waits for them (`traces.run_end`), off the
key path. Else from the live calls, when the run streamed them (a server agent-tui did
not start). Else nothing is said.

The ``events`` mode sends a record per token (the model's chunk, and each chain's around
it): a record changes the transcript only when a call starts (its line is added) or ends
(its line is redrawn once), never per token. The lines and the totals are the
transcript's notices: items of agent-tui's own, rendered as inert text.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.chat.items import Added, NoticeItem, TranscriptChange, Updated
from agent_tui.traces.live_calls import LiveCall, LiveCalls, call_line
from agent_tui.traces.run_end import totals_at_end
from agent_tui.tui.chat.stream_modes import remember_modes, session_modes

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from agent_tui.chat.session import ChatSession
    from agent_tui.client.events import EventsEvent
    from agent_tui.tui.chat.transcript import TranscriptView

EVENTS_MODE = "events"


class CallsHost(Protocol):
    """What the run's calls need of the chat pane (`ChatPane`)."""

    session: ChatSession

    @property
    def app(self) -> App[object]: ...
    @property
    def transcript(self) -> TranscriptView: ...

    def show_state(self) -> None: ...
    def run_worker(self, work: Any, *, group: str = ..., exit_on_error: bool = ...) -> Any: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def live_calls_on(app: App[Any]) -> bool:
    return EVENTS_MODE in session_modes(app)


class RunCalls:
    """The chat pane's: the live-calls switch, and the calls of the run it follows."""

    def __init__(self, pane: CallsHost) -> None:
        self.pane = pane
        self.live: LiveCalls | None = None  # the run's, from its first `events` record
        self._lines: dict[str, NoticeItem] = {}  # call id → its line
        self._ended: set[str] = set()  # calls whose line shows their end
        self._runs = 0  # runs begun: a totals line for a run no longer the last is dropped
        self._started = 0.0
        self._started_at = datetime.now(UTC)

    def toggle(self) -> None:
        """Ask for the ``events`` stream mode in the next runs, or stop asking."""
        app = self.pane.app
        modes = session_modes(app)
        on = EVENTS_MODE not in modes
        kept = tuple(mode for mode in modes if mode != EVENTS_MODE)
        remember_modes(app, (*kept, EVENTS_MODE) if on else kept)
        self.pane.show_state()
        said = (
            "Live calls on: the next runs stream every model and tool call (events mode)."
            if on
            else "Live calls off: the next runs stream no events."
        )
        self.pane.notify(said, title="Live calls", markup=False)

    def begin(self) -> None:
        """A run is about to stream."""
        self._runs += 1
        self.live = None
        self._lines, self._ended = {}, set()
        self._started, self._started_at = time.monotonic(), datetime.now(UTC)

    def take(self, event: EventsEvent) -> list[TranscriptChange]:
        """One ``events`` record: a call's line when it starts or ends, else nothing."""
        if self.live is None:
            self.live = LiveCalls()
        call = self.live.feed(event.data)
        if call is None:
            return []
        line = self._lines.get(call.id)
        if line is None:
            changes = self.pane.session.transcript.notice(call_line(call))
            self._lines[call.id] = next(
                c.item for c in changes if isinstance(c, Added) and isinstance(c.item, NoticeItem)
            )
            return changes
        if call.end_time is None or call.id in self._ended:
            return []  # a token: the line changes at the call's end
        self._ended.add(call.id)
        line.text = call_line(call)
        line.severity = "warning" if call.error else "information"
        return [Updated(line)]

    def ended(self, run_id: str | None) -> None:
        """The run ended: say its totals once they are known (in a worker)."""
        if run_id is None:
            return
        calls = list(self.live.calls) if self.live is not None else []
        wall = (self._started_at, datetime.now(UTC))
        self.pane.run_worker(
            self._say_totals(run_id, self._runs, calls, wall),
            group="chat-totals",
            exit_on_error=False,
        )

    async def _say_totals(
        self,
        run_id: str,
        run_number: int,
        calls: list[LiveCall],
        wall: tuple[datetime, datetime],
    ) -> None:
        totals = await totals_at_end(run_id, started=self._started, live=calls, wall=wall)
        if totals is None or run_number != self._runs:
            return  # not traced nor streamed; or another run has begun since
        if totals.model_calls == 0 and totals.tool_calls == 0:
            return  # a run that called nothing: "0 model calls, 0 tool calls" is noise
        changes = self.pane.session.transcript.notice(f"run totals: {totals.text()}")
        self.pane.transcript.apply(changes)
