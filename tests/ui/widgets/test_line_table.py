"""A `LineTable`'s columns fit the room it has as rows come and go: the last column is
read whole whether or not the rows need a scrollbar."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App, ComposeResult

from agent_tui.tui.widgets.line_table import LineTable
from agent_tui.tui.widgets.resource_table import Column
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


@dataclass(frozen=True)
class Item:
    key: str
    name: str


def columns() -> list[Column[Item]]:
    return [
        Column("name", "Name", lambda i: i.name, width=10, flex=1),
        Column("key", "Key", lambda i: i.key, width=8),
    ]


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LineTable(columns(), item_id=lambda i: i.key)


def items(count: int) -> list[Item]:
    return [Item(f"key{n:05d}", f"item {n}") for n in range(count)]


async def test_rows_that_bring_a_scrollbar_keep_the_last_column_whole() -> None:
    app = TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(LineTable)
        table.set_rows(items(3))  # no scrollbar yet
        await pilot.pause()
        assert "key00002" in screen_text(app)
        table.append_rows(items(60))  # now the rows overflow: a scrollbar comes
        await pilot.pause()
        assert table.show_vertical_scrollbar
        lines = screen_text(app).splitlines()
        assert "key00000" in lines[1] and "key00009" in lines[10], lines
        assert not table.show_horizontal_scrollbar
        # And back: a table of few rows again uses the room the scrollbar left.
        table.set_rows(items(2))
        await pilot.pause()
        assert not table.show_vertical_scrollbar and "key00001" in screen_text(app)


async def test_rows_drawn_before_show_what_their_items_hold_when_paged_to(
    wait_for: WaitFor,
) -> None:
    """Rows are drawn before they are shown (the page below, while the table is idle);
    an item changed meanwhile (a row completed by a later page, a re-sent row) shows as
    it is now when the page comes, and the rows around it are not drawn again."""
    app = TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(LineTable)
        table.focus()
        table.set_rows(items(60))
        await wait_for(
            pilot,
            lambda: table.show_vertical_scrollbar and "key00009" in screen_text(app),
            what="the first page, with its scrollbar",
        )
        page = table.page_rows
        below = [(i, table._line(i, table.size.width)) for i in range(page, 2 * page)]
        table.update_item(Item(f"key{page + 1:05d}", "renamed one"))
        table.append_rows([Item(f"key{page + 2:05d}", "renamed two")])
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: "renamed one" in screen_text(app), what="the new page")
        shown = screen_text(app)
        assert "renamed two" in shown and f"item {page + 1}" not in shown
        assert f"item {page + 3}" in shown
        # The unchanged rows were drawn once, ahead: the same lines are shown.
        kept = [line is table._line(i, table.size.width) for i, line in below]
        assert kept.count(False) <= 3, kept  # the two renamed rows and the cursor's


async def test_rows_loaded_below_a_full_table_can_be_scrolled_to(wait_for: WaitFor) -> None:
    """Rows appended below rows that already overflow (a page of checkpoints loaded while
    paging) are reached by the keys, and the scroll bar's thumb shrinks for them."""
    app = TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(LineTable)
        table.focus()
        table.set_rows(items(30), has_more=True)
        await wait_for(pilot, lambda: table.show_vertical_scrollbar, what="the scroll bar")
        table.append_rows(items(90))
        await wait_for(
            pilot,
            lambda: table.vertical_scrollbar.window_virtual_size == 91,
            what="the scroll bar sized for 90 rows",
        )
        await pilot.press("end")
        await wait_for(pilot, lambda: "key00089" in screen_text(app), what="the last row")
        assert table.cursor_row == 89
