"""`RunMachine`: the chat's run state, owned in one place (headless, no I/O, no Textual).

Everything that asks "is a run going, how is it doing, may I send?" reads this object:
the chat pane renders it (the state line, the cancel keys), the queue asks it whether a
message may wait. `ChatSession` alone moves it through a run (start, the driver's
events, the end); the queue keeps its one message here. Nothing else keeps a copy.
`RunDriver` keeps only what one connection needs (the stream being read, the backoff),
and `ChatTranscript` only the items.

The states (the names users see on the state line are in quotes):

    idle ──start──▶ starting ──first event──▶ streaming ("running")
                       │                         │   ▲
                       │ refused / failed        │   │ rejoined (or a new event arrived)
                       ▼ before the server       ▼   │
                     idle                    rejoining ("reconnecting")
                                                 │
     streaming / rejoining / starting ──Finished──▶ finished ("done")
                                                  │ interrupted  (the graph called interrupt())
                                                  │ paused       (stopped at a breakpoint)
                                                  │ failed       ("error")
                                                  │ cancelled

- `start(intent)`: the user sent a message, answered an interrupt, or a run found on the
  thread is being joined. Only from a resting state (idle or how the last run ended).
- `take(event)` folds each driver event in: the first event means the server took the
  run (`accepted`); an `error` event shows "error" at once although the run goes on until
  its `Finished`; `Reconnecting` / `Reconnected` move between streaming and rejoining.
  `Finished` gives the outcome, the server's own record of the run.
- `not_started()`: nothing was sent (the thread was busy, no assistant was picked, the
  network failed before the server answered): back to idle, the draft kept.
- `request_cancel()`: the user pressed esc / ctrl+c. The state stays (with "cancelling…"
  beside it) until the run's `Finished("cancelled")`: the server decides, not the key.
- `run_over()`: the run's worker is done with it; the state stays where the run ended.

`paused` (a breakpoint: `interrupt_before` / `interrupt_after`) is a resting state of its
own, distinct from `interrupted` (the graph asked a human through `interrupt()`): an
interrupt is answered with a resume value, a breakpoint is continued (or stepped) with
no value. The run itself ends `interrupted` (the server does not tell the two apart);
`paused_at(where)` moves the resting state on once the thread's state shows a breakpoint
(`tui/chat/breakpoints.py`).

The queued message (a message sent during a run) lives here too: at most one. Kept by
agent-tui (`queue`), it is sent when the run ends `done` and any other ending gives it
back to the user (`take_queued`); handed to the server with a multitask strategy
(`chat/double_text.py`), it is already a run there (`queued_run_id`), followed once the
active run ends, however it ends.

Listeners (`subscribe`) are told after every change, so a widget re-renders from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.chat.double_text import DoubleText
from agent_tui.chat.driver_events import (
    DriverEvent,
    Finished,
    Received,
    Reconnected,
    Reconnecting,
    RunGone,
)
from agent_tui.chat.items import TERMINAL_RUN_STATES, InterruptItem, RunState
from agent_tui.client.events import ErrorEvent

STILL_SENDING = "Still sending this message: wait for the run to start."
ALREADY_QUEUED = "One message is already queued: esc drops it."
CANCELLING = "cancelling…"
_WHY_NOT_SENT: dict[str, str] = {
    "interrupted": "The run stopped for a question",
    "paused": "The run stopped at a breakpoint",
    "error": "The run failed",
    "cancelled": "The run was cancelled",
}


@dataclass(frozen=True, slots=True)
class Send:
    """Send `text` as a human message; `queued`: it waited for the previous run (and is
    no longer in the prompt)."""

    text: str
    queued: bool = False


@dataclass(frozen=True, slots=True)
class Resume:
    """Answer `interrupt` (None: the only one waiting) with `value`."""

    value: Any
    interrupt: InterruptItem | None = None


@dataclass(frozen=True, slots=True)
class Join:
    """Follow `run_id`, a run already on the thread (started elsewhere, or handed to the
    server during the previous run); `reload`: the transcript starts over from the
    thread's state first (that previous run was rolled back)."""

    run_id: str
    reload: bool = False


@dataclass(frozen=True, slots=True)
class Start:
    """A run with a raw `input` or `command` (`ChatSession.run`, for scripts and tests)."""

    input: Any = None
    command: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class GoOn:
    """A thread paused at a breakpoint runs on with no input: to its next breakpoint, or
    (`step`) to just before its next node."""

    step: bool = False


Intent = Send | Resume | Join | Start | GoOn


class RunMachine:
    """The run state of one thread's chat. See the module docstring for the transitions."""

    def __init__(self) -> None:
        self.state: RunState = "idle"
        self.detail = ""
        """A word beside the state: "attempt 2", "cancelling…", why the run ended."""
        self.intent: Intent | None = None
        """What the current run was started for; None when no run is under way."""
        self.accepted = False
        """The server took the current run (its first event arrived)."""
        self.submitted = False
        """The run request is on its way (a cancel now applies to the run it makes)."""
        self.cancel_wanted = False
        """A cancel came before the run existed: cancel it as soon as it does."""
        self.gone = False
        """The server no longer knows the run (a rejoin answered 404)."""
        self.ended: RunState | None = None
        """How the current (or last) run ended; None while it goes on or if it never started."""
        self.queued: str | None = None
        self.queued_how: DoubleText = "queue"
        self.queued_run_id: str | None = None
        """The run the server made for the queued message (a multitask strategy)."""
        self._listeners: list[Callable[[], None]] = []

    # -- reading -----------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """A run is under way: from `start` until `run_over` (or `not_started`)."""
        return self.intent is not None

    @property
    def busy(self) -> bool:
        """A new run may not start now: one is under way, or still settling."""
        return self.active or self.state not in TERMINAL_RUN_STATES

    @property
    def cancellable(self) -> bool:
        """The cancel keys apply: the run has not reached its outcome yet."""
        return self.state in ("starting", "running", "reconnecting")

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every change."""
        self._listeners.append(listener)

    # -- transitions -------------------------------------------------------------------

    def start(self, intent: Intent) -> None:
        """A run begins for `intent` (a send, a resume, a join): `starting`."""
        if self.active:
            raise RuntimeError(f"a run is already under way ({self.intent!r})")
        self.intent = intent
        self.accepted = self.submitted = self.cancel_wanted = self.gone = False
        self.ended = None
        self._set("starting")

    def take(self, event: DriverEvent) -> None:
        """Fold in one driver event (replays must not come here: `ChatSession` drops them)."""
        if isinstance(event, Received):
            self.accepted = True
            if isinstance(event.event, ErrorEvent):
                self._set("error")
            elif self.state in ("idle", "starting", "reconnecting"):
                self._set("running")
        elif isinstance(event, Reconnecting):
            self._set("reconnecting", f"attempt {event.attempt}")
        elif isinstance(event, Reconnected):
            self.accepted = True
            if self.state != "running":
                self._set("running")
        elif isinstance(event, RunGone):
            self.accepted = self.gone = True
            self._changed()
        elif isinstance(event, Finished):
            self.ended = event.state
            self._set(event.state, event.reason or "", always=True)

    def not_started(self) -> None:
        """Nothing was sent (refused, failed, no assistant): idle, no run under way."""
        self.intent = None
        self.submitted = self.cancel_wanted = False
        self.ended = None
        self._set("idle", always=True)

    def request_cancel(self) -> bool:
        """The user asked to cancel; False when no run is under way."""
        if not self.active:
            return False
        self.detail = CANCELLING
        self._changed()
        return True

    def run_over(self) -> RunState | None:
        """The run's worker is done with it: how it ended (None: it never started)."""
        self.intent = None
        self.submitted = self.cancel_wanted = False
        self._changed()
        return self.ended

    def broke(self, reason: str) -> None:
        """The run's worker raised what no run step handles (the app reports it): the run
        is over, in error, and nothing says it still runs."""
        self.intent = None
        self.submitted = self.cancel_wanted = False
        self.ended = "error"
        self._set("error", reason, always=True)

    def paused_at(self, where: str) -> None:
        """The thread rests at a breakpoint (`where`: "before tools"); a run under way is
        not disturbed."""
        if not self.active:
            self._set("paused", where, always=True)

    def loaded(self, *, waiting_interrupt: bool, cancelled: bool = False) -> None:
        """The thread's state was (re)loaded: `interrupted` when a question waits,
        `cancelled` when its last run was, else idle. A run under way keeps its state (its
        own events keep the chat right)."""
        if self.active:
            return
        state: RunState = "idle"
        if waiting_interrupt:
            state = "interrupted"
        elif cancelled:
            state = "cancelled"
        self._set(state, always=True)

    # -- the queued message ------------------------------------------------------------

    def queue_refusal(self) -> str | None:
        """Why a message cannot be queued now; None when it can."""
        intent = self.intent
        if isinstance(intent, Send) and not intent.queued and not self.accepted:
            # The prompt still holds the message being sent: queueing would send it twice.
            return STILL_SENDING
        if self.queued is not None:
            return ALREADY_QUEUED
        return None

    def enqueue(self, text: str, how: DoubleText = "queue", run_id: str | None = None) -> None:
        """Queue `text` (`how`: kept here, or handed to the server as run `run_id`)."""
        self.queued, self.queued_how, self.queued_run_id = text, how, run_id
        self._changed()

    def drop_queued(self) -> str | None:
        """Forget the queued message: its text (None when none was queued)."""
        text, self.queued = self.queued, None
        self.queued_how, self.queued_run_id = "queue", None
        if text is not None:
            self._changed()
        return text

    def take_queued(self, ended: RunState | None) -> tuple[str | None, str]:
        """After a run that ended `ended`, the queued message (None if none) and, when it
        must go back to the user instead of being sent, why (empty: send it now). A run
        that stopped for a question, failed or was cancelled does not send it: the next
        message probably depends on that outcome. The queue is empty afterwards."""
        on_server = self.queued_how != "queue"
        text = self.drop_queued()
        if text is None or ended == "done" or on_server:
            return text, ""  # a message the server holds runs there whatever the ending
        why = _WHY_NOT_SENT.get(ended or "", "The run did not finish")
        return text, f"{why}, so the queued message was not sent"

    # -- helpers -----------------------------------------------------------------------

    def _set(self, state: RunState, detail: str = "", *, always: bool = False) -> None:
        # A detail ("cancelling…", "attempt 2") lasts until the state changes.
        if state == self.state and not always and not detail:
            return
        self.state, self.detail = state, detail
        self._changed()

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()
