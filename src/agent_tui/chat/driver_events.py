"""What `RunDriver.stream()` yields: every SSE event, connection news, and one `Finished`."""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.chat.items import RunState
from agent_tui.client.events import RunEvent


@dataclass(frozen=True, slots=True)
class Received:
    """One SSE event as received, `elapsed_s` after the run was requested.

    `duplicate`: a rejoin replayed an event that had already arrived: neither the
    transcript nor the event inspector should take it again.
    """

    event: RunEvent
    elapsed_s: float
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """The connection dropped (`reason`); rejoining in `delay_s`, try `attempt`."""

    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True, slots=True)
class Reconnected:
    """The rejoin worked after `attempt` tries; `replayed` events came again and were
    recognised as duplicates."""

    attempt: int
    replayed: int


@dataclass(frozen=True, slots=True)
class RunGone:
    """The server no longer knows the run (the rejoin answered 404): reload the thread."""

    message: str


@dataclass(frozen=True, slots=True)
class Finished:
    """The last event of every stream. `state`: done, interrupted (the graph asked a
    human), error, cancelled. `reason` says why when it is not the run's own outcome
    (e.g. gave up reconnecting). `thread_status` is the thread's status afterwards
    (None when the server could not be asked)."""

    state: RunState
    run_id: str | None
    thread_status: str | None
    reason: str | None = None


DriverEvent = Received | Reconnecting | Reconnected | RunGone | Finished


class RunAlreadyActive(Exception):
    """The thread is busy with another run (the server answered 409)."""

    def __init__(self, detail: str = "") -> None:
        message = "A run is already active on this thread: wait for it to end or cancel it."
        super().__init__(message)
        self.detail = detail
