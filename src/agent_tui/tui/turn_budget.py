"""How long a task of the app may work before it lets the event loop go, by how busy the
loop is.

A key waits for everything the loop runs in the turns between its arrival and its
action: the screen's refresh, the run's events being handled, the text being drawn. A
task that works for a fixed time a turn (the run's events, the drawing queue) stacks on
top of the rest: with a refresh of the screen in the same turn, on a machine whose
other work leaves the app a third of a core, a key waited for all of it, three times
over (`benchmarks/chat_render.py`).

So a task asks a `TurnBudget`: each time it lets the loop go, the budget notes how long
the loop took before the task ran again (the rest of the app's work, and the time the
machine gave to other processes). The next slice is what is left of `TURN_SECONDS` after
that, between `LEAST_SECONDS` and `MOST_SECONDS`: a loop that is idle gives a task its
whole slice (the text keeps up with the stream); a loop that just refreshed the screen,
or a machine that is busy elsewhere, gives it a small one, and keys wait less. The work
is done either way, in more turns.
"""

from __future__ import annotations

import asyncio
import time

TURN_SECONDS = 0.008  # what one turn of the loop should take at most, every task's work in it
MOST_SECONDS = 0.005  # the longest slice of one task
LEAST_SECONDS = 0.001  # the shortest: the work still goes on when the loop is slow


class TurnBudget:
    """The slices of work of one task: `deadline()` when to let the loop go; `yield_turn()`
    lets it go and measures how long the loop took meanwhile."""

    def __init__(
        self,
        turn: float = TURN_SECONDS,
        most: float = MOST_SECONDS,
        least: float = LEAST_SECONDS,
    ) -> None:
        self._turn, self._most, self._least = turn, most, least
        self.slice = most
        """The current slice, in seconds (for tests and benchmarks)."""
        self.shortened = 0
        """Slices cut short by a slow loop so far (for tests and benchmarks)."""
        self.lag = 0.0
        """How long the loop took, the last time the task let it go."""
        self._deadline = time.perf_counter() + most

    def deadline(self) -> float:
        """When the current slice ends (`time.perf_counter()`)."""
        return self._deadline

    def spent(self) -> bool:
        """Whether the current slice is over."""
        return time.perf_counter() > self._deadline

    def start(self) -> float:
        """Start a slice now (after a wait of the task's own: the loop was free); its end."""
        self._deadline = time.perf_counter() + self.slice
        return self._deadline

    def after_lag(self, lag: float) -> None:
        """The loop took `lag` seconds before the task ran again: the next slice."""
        self.lag = lag
        self.slice = min(self._most, max(self._least, self._turn - lag))
        self.shortened += self.slice < self._most
        self._deadline = time.perf_counter() + self.slice

    async def yield_turn(self) -> float:
        """Let the loop go for one turn (keys first); the next slice's end."""
        let_go = time.perf_counter()
        await asyncio.sleep(0)
        self.after_lag(time.perf_counter() - let_go)
        return self._deadline
