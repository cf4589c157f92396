"""How a run ended and where its thread rests, from evidence (headless).

Servers that speak the Agent Server API record these differently (server-quirks.md):

| what happened            | langgraph-api: run / thread      | Aegra: run / thread        |
|--------------------------|----------------------------------|----------------------------|
| done                     | success / idle                   | success / idle             |
| `interrupt()` (question) | success / interrupted            | interrupted / interrupted  |
| a breakpoint             | success / interrupted            | success / idle, `next` set |
| cancelled                | interrupted / interrupted + `UserInterrupt` error | interrupted / idle, task error `CancelledError` |
| failed                   | error / error                    | error / error              |

So neither status alone says what happened. `run_outcome` decides from what the stream
showed (an interrupt, an error event), whether this client asked to cancel, the run's
status, and the thread with its state: a thread whose state still has nodes to run or
questions to answer, and was not cancelled, waits (paused); a run stopped with nothing
waiting was cancelled. `resting_status` says the thread's status as langgraph-api would
("interrupted" for a thread that waits), so the rest of agent-tui reads one meaning.
"""

from __future__ import annotations

from typing import Literal

from agent_tui.client.models import Thread, ThreadState
from agent_tui.threads.failure import was_cancelled

_ACTIVE = frozenset({"pending", "running"})

Outcome = Literal["done", "interrupted", "cancelled", "error"]
"""How a run ended (the chat's `RunState` names: `interrupted` covers a breakpoint too)."""


def waits(thread: Thread | None, state: ThreadState | None) -> bool:
    """The thread waits for the user: at a breakpoint (`next` nodes to run) or for an
    answer to `interrupt()`; not after a cancel or a failure."""
    if thread is None or thread.status in ("error", "busy"):
        return False
    if state is None:
        return thread.status == "interrupted" and not was_cancelled(thread)
    if was_cancelled(thread, state.tasks):
        return False
    return bool(state.next or state.interrupts or thread.interrupts)


def resting_status(thread: Thread, state: ThreadState | None) -> str:
    """The thread's status with one meaning on every server: `interrupted` when it waits
    (Aegra says `idle` at a breakpoint), else what the server says."""
    return "interrupted" if waits(thread, state) else thread.status


def run_outcome(
    status: str | None,
    thread: Thread | None,
    state: ThreadState | None,
    *,
    saw_interrupt: bool = False,
    saw_error: bool = False,
    cancel_requested: bool = False,
) -> Outcome:
    """How a run ended: `status` is the server's record of the run (None: unknown),
    `thread` and `state` the thread read after it (None: could not be read)."""
    if status == "error" or saw_error:
        return "error"
    if status is None and thread is not None and thread.status == "error":
        return "error"  # the run's record is unknown: the thread's word
    if saw_interrupt:
        return "interrupted"
    if status == "timeout" or (
        cancel_requested and (status is None or status in _ACTIVE or status == "interrupted")
    ):
        return "cancelled"
    if thread is not None and was_cancelled(thread, state.tasks if state else ()):
        return "cancelled"
    if waits(thread, state):
        return "interrupted"
    if status == "interrupted":
        return "cancelled"  # stopped, and nothing waits
    return "done"
