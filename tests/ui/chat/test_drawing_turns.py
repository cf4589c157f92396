"""The chat's work in slices of the loop's turns that shrink when the loop is slow
(`tui.turn_budget`): the text still all drawn, in smaller slices, so a key waits less."""

from __future__ import annotations

import asyncio
import time

from textual.app import App, ComposeResult

from agent_tui.chat.items import Added, AIItem
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.markdown_text import drawing_queue
from agent_tui.tui.chat.transcript import TranscriptView
from agent_tui.tui.turn_budget import LEAST_SECONDS, MOST_SECONDS, TURN_SECONDS, TurnBudget
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


def hold_the_loop(seconds: float) -> None:
    """What a refresh of a big screen does to the loop: keeps it for `seconds`."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_the_slice_is_what_the_turn_leaves_between_the_least_and_the_most() -> None:
    budget = TurnBudget()
    assert budget.slice == MOST_SECONDS
    budget.after_lag(0.0)
    assert budget.slice == MOST_SECONDS
    budget.after_lag(TURN_SECONDS - 0.002)
    assert abs(budget.slice - 0.002) < 1e-9
    budget.after_lag(1.0)
    assert budget.slice == LEAST_SECONDS
    assert budget.shortened == 2


async def test_a_turn_the_loop_spent_elsewhere_shortens_the_next_slice() -> None:
    budget = TurnBudget()
    asyncio.get_running_loop().call_soon(hold_the_loop, 2 * TURN_SECONDS)
    deadline = await budget.yield_turn()
    assert budget.slice == LEAST_SECONDS
    assert deadline - time.perf_counter() <= LEAST_SECONDS


class SlowScreenApp(App[None]):
    """A transcript in an app whose loop is held 20 ms every 30 ms, as a big screen's
    refreshes on a busy machine hold it."""

    def compose(self) -> ComposeResult:
        yield TranscriptView()

    def on_mount(self) -> None:
        self.set_interval(0.03, lambda: hold_the_loop(0.02))


async def test_a_history_drawn_while_the_loop_is_slow_is_drawn_whole_in_short_slices(
    wait_for: WaitFor,
) -> None:
    app = SlowScreenApp()
    async with app.run_test(size=(100, 30)) as pilot:
        items = [
            AIItem(f"m{m}", text="\n\n".join(f"m{m} p{n} says hello" for n in range(60)))
            for m in range(8)
        ]
        app.query_one(TranscriptView).apply(Added(item) for item in items)
        queue = drawing_queue(app)

        def shown() -> list[str]:
            return [b.shown_text for b in app.query(AIBlock) if isinstance(b, AIBlock)]

        await wait_for(
            pilot, lambda: shown() == [item.text for item in items], what="every message drawn"
        )
        # The turns the loop was held shortened the drawing's slices.
        assert queue.budget.shortened > 0
        await wait_for(pilot, lambda: "m7 p59" in screen_text(app), what="the last paragraph")
