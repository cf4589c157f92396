"""On a table with thousands of loaded rows, `/` filters once the user pauses typing,
not once per key (each refill of the table costs a quarter of a second there).

The keys come as a burst the app receives together, as a terminal delivers a word typed
faster than the app reads: `pilot.press` lets the app run after each key, which takes
longer than the pause on a loaded machine (each key would then rightly filter).
"""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input

from agent_tui.tui import resource_screen
from agent_tui.tui.resource_screen import FILTER_DEBOUNCE_ROWS
from tests.support.shell import ListScreen, ShellHarness, make_items
from tests.support.waiting import WaitFor


async def test_big_tables_filter_after_a_pause(
    wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pause longer than a starved process takes to read the burst (0.15 s is not, at a
    # load of 20 on two cores): the promise is one refill per burst, whatever its pace.
    monkeypatch.setattr(resource_screen, "FILTER_DEBOUNCE", 2.0)
    screen = ListScreen(make_items(FILTER_DEBOUNCE_ROWS + 10))
    screen.page_size = FILTER_DEBOUNCE_ROWS + 10  # one page: all rows loaded
    app = ShellHarness(screen)
    async with app.run_test(size=(120, 30)) as pilot:
        table = screen.table
        await wait_for(pilot, lambda: len(table.items) == FILTER_DEBOUNCE_ROWS + 10)
        refills: list[str] = []
        original = table.set_filter

        def counting(text: str) -> None:
            refills.append(text)
            original(text)

        table.set_filter = counting  # type: ignore[method-assign]
        await pilot.press("slash")
        box = screen.query_one("#resource-filter", Input)
        await wait_for(pilot, lambda: box.has_focus, what="the filter box", workers=False)
        for key, char in [*zip("name", "name", strict=True), ("space", " "), ("7", "7")]:
            app.post_message(events.Key(key, char))  # not awaited: one burst
        await wait_for(pilot, lambda: table.filter_text == "name 7", what="the filter")
        assert refills == ["name 7"]  # one refill for the six keys
        assert table.row_count > 0
        assert all("name 7" in table.get_row_at(i)[1].plain for i in range(table.row_count))
