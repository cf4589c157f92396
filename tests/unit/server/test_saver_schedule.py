"""`agent_tui.server.records.Saver`: when a save is asked for, when it happens. An answer
that needs its change kept (a run created, a thread updated) waits for an urgent save; a
background save already waiting must not hold that answer for its delay. The local server
runs on uvloop (langgraph-api's choice), whose timer handles are not `asyncio.TimerHandle`:
a test on asyncio's own loop alone let every answer wait the background delay (+100 ms a
run) and pass."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import uvloop

from agent_tui.server.records import Saver

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop,
    "asyncio": asyncio.new_event_loop,
}
# Far longer than any loaded machine takes for a few turns of the loop: an urgent answer
# held for it times out below, one that is not comes back at once.
LONG_DELAY = 30.0


class CountingSaver(Saver):
    """Counts saves instead of writing the runtime's files (what is scheduled is tested)."""

    BACKGROUND_DELAY = LONG_DELAY

    def save(self) -> None:
        self.saves += 1


def run_on(loop_name: str, check: Callable[[], Coroutine[Any, Any, None]]) -> None:
    with asyncio.Runner(loop_factory=LOOPS[loop_name]) as runner:
        runner.run(check())


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_an_urgent_save_is_not_held_by_a_background_one_waiting(loop_name: str) -> None:
    async def check() -> None:
        saver = CountingSaver()
        background = saver.saved(urgent=False)
        urgent = saver.saved(urgent=True)
        await asyncio.wait_for(asyncio.shield(urgent), LONG_DELAY / 3)
        assert saver.saves == 1
        # The background caller is answered by that same save: nothing is left waiting.
        assert background.done()
        await asyncio.sleep(0.05)
        assert saver.saves == 1

    run_on(loop_name, check)


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_background_saves_wait_and_are_shared(loop_name: str) -> None:
    async def check() -> None:
        saver = CountingSaver()
        saver.BACKGROUND_DELAY = 2.0
        first = saver.saved(urgent=False)
        second = saver.saved(urgent=False)
        assert first is second
        await asyncio.sleep(0.05)
        assert saver.saves == 0  # not yet: a background save waits its delay
        await asyncio.wait_for(first, 10)
        assert saver.saves == 1

    run_on(loop_name, check)


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_answers_asked_in_the_same_turns_share_one_urgent_save(loop_name: str) -> None:
    async def check() -> None:
        saver = CountingSaver()
        answers = [saver.saved() for _ in range(8)]
        await asyncio.wait_for(asyncio.gather(*answers), LONG_DELAY / 3)
        assert saver.saves == 1
        # A save asked for after that one ended is a new one.
        await asyncio.wait_for(saver.saved(), LONG_DELAY / 3)
        assert saver.saves == 2

    run_on(loop_name, check)
