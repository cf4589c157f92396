"""The resource table and the verbs every resource screen shares, over an in-memory list."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from textual.widgets import Input, Static

from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.widgets.json_view import JsonView
from agent_tui.tui.widgets.resource_table import ResourceTable, one_line, status_style
from tests.support.screen import toast_saying, toasts_shown
from tests.support.shell import Item, ListScreen, ShellHarness, make_items
from tests.support.waiting import WaitFor

HOSTILE = "[@click=app.quit]boom[/] [bold]b\x1b]52;c;ZXZpbA==\x07\x1b[2J"
SHOWN = "[@click=app.quit]boom[/] [bold]b"


async def test_pages_load_as_the_cursor_nears_the_end(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(2500))
    app = ShellHarness(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 50, what="the first page")
        assert screen.fetches == [(0, 50)]
        assert table.has_more
        await pilot.press("end")
        await wait_for(pilot, lambda: table.row_count == 100, what="the second page")
        assert screen.fetches[-1] == (50, 50)
        # Jumping to the end again and again pages through everything, one page each.
        while table.has_more:
            loaded = table.row_count

            def grew(loaded: int = loaded) -> bool:
                return table.row_count > loaded or not table.has_more

            await pilot.press("end")
            await wait_for(pilot, grew)
        assert table.row_count == 2500
        assert len(screen.fetches) == 51  # the last page is empty
        heading = str(screen.query_one("#resource-heading", Static).render())
        assert "2500 widgets loaded" in heading


class HeldListScreen(ListScreen):
    """Its pages after the first wait until `release()`."""

    def __init__(self, items: list[Item]) -> None:
        super().__init__(items)
        self.asked: list[int] = []
        self._gate = asyncio.Event()

    def release(self) -> None:
        self._gate.set()
        self._gate = asyncio.Event()  # the page after waits again

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Item]:
        self.asked.append(offset)
        if offset:
            await self._gate.wait()
        return await super().fetch_page(offset, limit)


async def test_keys_pressed_on_the_last_row_while_a_page_loads_move_on_when_it_comes(
    wait_for: WaitFor,
) -> None:
    screen = HeldListScreen(make_items(200))
    app = ShellHarness(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 50, what="the first page")
        await pilot.press("end")
        await wait_for(pilot, lambda: screen.asked == [0, 50], what="the next page asked for")
        page = table.scrollable_content_region.height - table.header_height
        # The next page is on its way: a page-down and two downs go nowhere yet...
        await pilot.press("pagedown", "down", "down")
        assert table.cursor_row == 49
        # ...and are made once it is in: the cursor is where the keys said.
        screen.release()
        await wait_for(pilot, lambda: table.row_count == 100, what="the second page")
        await pilot.pause()
        assert table.cursor_row == 49 + page + 2
        assert table.selected_item == screen.source[49 + page + 2]
        # A move elsewhere drops what is still owed: the cursor stays where it was put.
        await pilot.press("end")
        await wait_for(pilot, lambda: screen.asked[-1] == 100, what="the third page asked for")
        await pilot.press("pagedown", "pagedown", "home")
        screen.release()
        await wait_for(pilot, lambda: table.row_count == 150, what="the third page")
        await pilot.pause()
        assert table.cursor_row == 0


async def test_filter_shows_matching_loaded_rows_and_esc_clears(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(40))
    app = ShellHarness(screen)
    async with app.run_test() as pilot:
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 40)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"INTERRUPTED")
        assert table.row_count == 10
        assert {item.status for item in table.visible_items} == {"interrupted"}
        await pilot.press("enter")  # keep the filter, back to the table
        assert table.has_focus and table.row_count == 10
        assert "filter 'interrupted': 10 shown" in str(
            screen.query_one("#resource-heading", Static).render()
        )
        await pilot.press("escape")
        assert table.row_count == 40 and not table.filter_text


async def test_cells_are_inert_and_status_is_coloured(wait_for: WaitFor) -> None:
    long = Item("c", "line one\nline two\t" + "x" * 500)
    screen = ListScreen([Item("a", HOSTILE, "error"), Item("b", "plain", "idle"), long])
    app = ShellHarness(screen)
    async with app.run_test(size=(120, 20)) as pilot:
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 3)
        row = table.get_row("a")
        assert row[1].plain == SHOWN
        assert row[2].style == status_style("error") == "bold red"
        assert table.get_row("b")[2].style == "green"
        # On one line, cut at the column's most cells so the other columns stay in view.
        assert table.get_row("c")[1].plain == "line one line two " + "x" * 41 + "…"
        await pilot.click(ResourceTable, offset=(12, 1))
        assert app.is_running


async def test_raw_json_view_is_inert_and_copy_id(wait_for: WaitFor) -> None:
    screen = ListScreen([Item("a", HOSTILE, extra={"meta": {"k": HOSTILE}})])
    app = ShellHarness(screen)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1)
        await pilot.press("c")
        assert app.copied == ["a"]
        await toast_saying(pilot, "Copied widget id a")
        await pilot.press("y")
        raw = app.screen
        assert isinstance(raw, RawJsonScreen)
        text = raw.query_one(JsonView).text
        assert SHOWN in text and "\x1b" not in text and "\x07" not in text
        await pilot.click(JsonView, offset=(5, 2))
        assert app.is_running
        await pilot.press("escape")
        assert app.screen is screen


async def test_delete_asks_first_and_then_removes_the_row(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(3))
    app = ShellHarness(screen)
    async with app.run_test() as pilot:
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 3)
        await pilot.press("ctrl+d")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Delete widget item-00000?" in app.screen.question
        await pilot.press("n")
        assert screen.deleted == [] and table.row_count == 3
        await pilot.press("ctrl+d", "enter")  # focus starts on "No"
        assert not isinstance(app.screen, ConfirmScreen)
        assert screen.deleted == [] and table.row_count == 3
        await pilot.press("ctrl+d", "y")
        await wait_for(pilot, lambda: table.row_count == 2, what="the row to go")
        assert screen.deleted == ["item-00000"]


async def test_readonly_refuses_mutations_with_the_reason(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(3))
    app = ShellHarness(screen, readonly=True)
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 3)
        await pilot.press("n", "ctrl+d")
        assert screen.created == 0
        assert not isinstance(app.screen, ConfirmScreen)
        messages = await toasts_shown(pilot, 2)
        assert (
            "Refused\nRead-only mode: cannot create a widget (started with --readonly)" in messages
        )
        assert (
            "Refused\nRead-only mode: cannot delete a widget (started with --readonly)" in messages
        )
        await pilot.press("y")  # browsing still works
        assert isinstance(app.screen, RawJsonScreen)


async def test_ten_thousand_rows_go_in_by_chunks(wait_for: WaitFor) -> None:
    screen = ListScreen([])
    app = ShellHarness(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        table = screen.table
        await wait_for(pilot, lambda: screen.fetches == [(0, 50)], what="the empty page")
        table.set_rows(make_items(10_000))
        # One chunk now; the rest a chunk per turn of the message loop, so keys and
        # repaints get in between (DataTable measures every cell it adds).
        assert table.row_count == ResourceTable.CHUNK and table.loading_rows
        await wait_for(pilot, lambda: table.row_count == 10_000, what="every row")
        assert not table.loading_rows
        await pilot.press("end", "c")
        assert app.copied == ["item-09999"]
        await pilot.press("slash", *"item-0999")
        # Thousands of rows: the filter applies once the typing pauses.
        await wait_for(pilot, lambda: table.filter_text == "item-0999", what="the filter")
        assert table.row_count == 10  # item-09990 … item-09999


def test_a_cell_is_cleaned_before_it_is_cut() -> None:
    """A long value holding an escape sequence: cut after cleaning, no tail of the
    sequence is left as text (`node-hostile52;c` was shown before)."""
    shown = one_line("node-hostile\x1b]52;c;cGF5bG9hZA==\x07-after", 20)
    assert shown == "node-hostile-after"
    assert one_line("a\x1b[31m" + "b" * 30, 10) == "a" + "b" * 8 + "…"
