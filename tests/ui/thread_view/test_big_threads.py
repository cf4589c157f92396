"""Big threads in the thread view: the newest checkpoint at once, the rows filling in behind
the first screenful, every row once when paging to the very first checkpoint."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.widget import Widget

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread, ThreadState
from agent_tui.tui.screens.thread_view import screen as screen_module
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.widgets.footer import KeysFooter
from tests.support.screen import screen_text
from tests.support.shell import ShellHarness
from tests.support.thread_view import (
    SIZE,
    TICKS,
    loaded,
    long_thread,
    steps_shown,
    superstep,
    view_app,
)
from tests.support.waiting import WaitFor, wait_in_flood

GROWING = 400  # ticks: checkpoint k holds k list items, as a chat holds its messages


async def growing_thread(client: AgentServerClient) -> Thread:
    steps = [superstep({"steps": GROWING}, "__input__"), superstep({"steps": GROWING}, "__start__")]
    steps += [superstep({"i": i, "seen": [i]}, "tick") for i in range(1, GROWING + 1)]
    return await client.threads.create(metadata={"graph_id": "loop"}, supersteps=steps)


async def test_a_thread_of_growing_states_opens_on_its_newest_and_the_rows_fill_in(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await growing_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the newest checkpoint")
        # The newest checkpoint, under the cursor, its whole state shown.
        state = screen.checkpoint_view.state
        assert state is not None and state.values["i"] == GROWING
        assert state.values["seen"] == list(range(1, GROWING + 1))
        assert steps_shown(screen)[:3] == [GROWING, GROWING - 1, GROWING - 2]
        assert screen.pane.cursor_row == 0

        # Without a key, the rows behind the first screenful come in, newest first, and
        # stop a page ahead of the cursor.
        await wait_for(pilot, lambda: len(screen.history.rows) == 200, what="a page ahead")
        await pilot.pause(0.2)
        assert steps_shown(screen) == list(range(GROWING, GROWING - 200, -1))
        assert "200+ checkpoints" in screen_text(app)
        assert screen.pane.cursor_row == 0
        # The newest is still the one shown (its state may have been read again: a state
        # let go is read when its row is shown).
        shown = screen.checkpoint_view.state
        assert shown is not None and shown.checkpoint_id == state.checkpoint_id
        assert shown.values == state.values


async def test_the_first_frame_already_shows_the_rows_and_the_newest_state(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened over another screen, the view is painted once with its rows and the newest
    checkpoint's state, not empty first and again when the server has answered."""
    thread = await growing_thread(client)
    # The server answers once the view's widgets are mounted, however long that takes
    # under load (the first paint waits that long here).
    monkeypatch.setattr(screen_module, "FIRST_PAINT_WAIT", 60.0)
    answer = asyncio.Event()
    read = client.threads.get_history

    async def late_history(*args: Any, **kwargs: Any) -> list[ThreadState]:
        await answer.wait()
        return await read(*args, **kwargs)

    monkeypatch.setattr(client.threads, "get_history", late_history)
    app = ShellHarness()
    app.client = client
    screen = ThreadViewScreen(client, thread.thread_id, status_interval=0)
    frames: list[tuple[int, str | None]] = []

    def laid_out(_: object) -> None:  # each layout of the screen, before its paint
        frames.append((screen.pane.row_count, screen.checkpoint_view.checkpoint_id))

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen.screen_layout_refresh_signal.subscribe(app, laid_out, immediate=True)
        app.push_screen(screen)
        # (Not `wait_for`: Pilot's pauses wait for the screen, which waits for the answer.)
        await wait_in_flood(
            lambda: (
                bool(screen.query(KeysFooter))
                and all(widget.is_mounted for widget in screen.query(Widget))
            ),
            what="the view's widgets mounted",
        )
        answer.set()
        await wait_for(pilot, lambda: loaded(screen) and bool(frames), what="the thread view")
        rows, shown = frames[0]
        assert rows >= screen.pane.scrollable_content_region.height - screen.pane.header_height
        assert shown == screen.history.rows[0].checkpoint_id
        assert screen.pane.cursor_row == 0
        text = screen_text(app)
        assert f"Step       {GROWING}" in text and f"Thread {thread.thread_id}" in text
        await pilot.press("down")  # the keys work as ever
        await wait_for(pilot, lambda: screen.selected_row is screen.history.rows[1], what="row 1")


async def test_paging_to_the_first_checkpoint_brings_every_row_once_in_order(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await long_thread(client)  # 1,202 checkpoints: more than the view holds states of
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the first rows")
        newest = screen.history.rows[0]
        while not screen.history.exhausted or screen.pane.loading_rows:
            rows = screen.pane.row_count
            await pilot.press("end")  # to the last row in: the next page comes in
            await wait_for(
                pilot,
                lambda rows=rows: screen.pane.row_count > rows or screen.history.exhausted,  # type: ignore[misc]
                what="the next rows",
            )
        await wait_for(pilot, lambda: not screen.pane.loading_rows, what="the last rows")
        await pilot.press("end")
        # Every checkpoint once, newest first; the header counts them all, no "+".
        assert steps_shown(screen) == list(range(TICKS, -2, -1))
        assert f"{TICKS + 2} checkpoints" in screen_text(app)
        assert "+ checkpoints" not in screen_text(app)
        oldest = screen.history.rows[-1]
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == oldest.checkpoint_id,
            what="the first checkpoint's state",
        )
        state = screen.checkpoint_view.state
        assert state is not None and state.step == -1

        # Back at the top, the newest checkpoint's state is shown again, whole.
        await pilot.press("home")
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == newest.checkpoint_id,
            what="the newest checkpoint's state again",
        )
        state = screen.checkpoint_view.state
        assert state is not None and state.values["i"] == TICKS
        assert steps_shown(screen) == list(range(TICKS, -2, -1))


async def test_page_downs_pressed_while_the_next_page_loads_all_move_the_cursor(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread = await long_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(screen.history.rows) == 200, what="a page ahead")
        await wait_for(pilot, lambda: not screen.pane.loading_rows, what="the rows in")
        pane = screen.pane
        page = pane.scrollable_content_region.height - pane.header_height
        # A slow server: the next page comes when the test says.
        answer, asked = asyncio.Event(), asyncio.Event()
        read = client.threads.get_history

        async def slow_history(*args: Any, **kwargs: Any) -> list[ThreadState]:
            asked.set()
            await answer.wait()
            return await read(*args, **kwargs)

        monkeypatch.setattr(client.threads, "get_history", slow_history)
        # On the last row in, the next page is asked for; two page-downs pressed while
        # it loads wait for its rows instead of being lost.
        await pilot.press("end")
        await asyncio.wait_for(asked.wait(), 30)
        await pilot.press("pagedown", "pagedown")
        assert pane.cursor_row == 199
        answer.set()
        target = 199 + 2 * page
        await wait_for(pilot, lambda: pane.cursor_row == target, what="two pages further")
        row = screen.history.rows[target]
        assert row.step == TICKS - target
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == row.checkpoint_id,
            what="that checkpoint's state",
        )
        assert pane.cursor_row == target
