"""The history pane draws each row from the thread's history as it scrolls into view: what
the user reads on screen while paging, clicking and moving the cursor."""

from __future__ import annotations

from typing import Any

from textual.app import App

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.screen import screen_text
from tests.support.thread_view import SIZE, TICKS, loaded, long_thread, view_app
from tests.support.waiting import WaitFor


def history_lines(app: App[Any], screen: ThreadViewScreen) -> list[str]:
    """The history pane's lines as painted (header first), cut to its width."""
    pane = screen.pane
    region = pane.scrollable_content_region
    lines = screen_text(app).splitlines()
    return [line[region.x : region.right] for line in lines[region.y : region.bottom]]


def step_on_line(line: str) -> str:
    return line.split()[0] if line.split() else ""


def state_step(screen: ThreadViewScreen) -> str:
    """The Step line of the state tab's summary."""
    summary = str(screen.checkpoint_view.query_one("#checkpoint-summary").render())
    return next(line.split()[1] for line in summary.splitlines() if line.startswith("Step"))


async def test_paging_down_to_the_end_draws_the_oldest_checkpoint_and_shows_its_state(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await long_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the first rows")
        lines = history_lines(app, screen)
        assert lines[0].split()[:2] == ["Step", "Source"]
        assert [step_on_line(line) for line in lines[1:4]] == [
            str(TICKS),
            str(TICKS - 1),
            str(TICKS - 2),
        ]
        pane = screen.pane
        presses = 0
        # As a user does: page-down until the thread's first checkpoint (step -1, its
        # input) is the last line drawn; the pages load behind the cursor meanwhile.
        while step_on_line(history_lines(app, screen)[-1]) != "-1":
            await pilot.press("pagedown")
            presses += 1
            assert presses < 200, f"still paging after {presses} presses"
        # The view is at its end; one more page-down puts the cursor on that last row.
        await pilot.press("pagedown")
        assert pane.cursor_row == pane.row_count - 1 == TICKS + 1
        lines = history_lines(app, screen)
        assert lines[0].split()[:2] == ["Step", "Source"]
        assert "input" in lines[-1] and step_on_line(lines[-2]) == "0"
        await wait_for(pilot, lambda: state_step(screen) == "-1", what="its state")

        # Page by page back up, each screenful drawn in order, the top one the newest.
        while pane.cursor_row:
            await pilot.press("pageup")
        await wait_for(
            pilot, lambda: state_step(screen) == str(TICKS), what="the newest state again"
        )
        lines = history_lines(app, screen)
        steps = [int(step_on_line(line)) for line in lines[1:] if step_on_line(line)]
        assert steps == list(range(TICKS, TICKS - len(steps), -1)) and len(steps) > 30


async def test_the_state_shown_is_the_row_under_the_cursor_and_a_click_picks_a_row(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await long_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the first rows")
        pane = screen.pane
        await pilot.press("pagedown", "pagedown", "down", "down", "down")
        row = screen.history.rows[pane.cursor_row]
        await wait_for(pilot, lambda: state_step(screen) == str(row.step), what="its state")

        # The cursor's line on screen is that checkpoint's row (once painted whole: the
        # state drawn beside it may change the panes' widths for a frame).
        def cursor_line() -> str:
            lines = history_lines(app, screen)
            return lines[pane.header_height + pane.cursor_row - int(pane.scroll_y)]

        await wait_for(pilot, lambda: row.short_id in cursor_line(), what="the cursor's row")
        assert step_on_line(cursor_line()) == str(row.step)

        # A click on the third row drawn moves the cursor there and shows its state.
        third = history_lines(app, screen)[pane.header_height + 2]
        await pilot.click(pane, offset=(10, pane.header_height + 2))
        await wait_for(
            pilot, lambda: state_step(screen) == step_on_line(third), what="the clicked row's state"
        )
        assert screen.history.rows[pane.cursor_row].step == int(step_on_line(third))
