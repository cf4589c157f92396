"""A `LineTable`'s columns fit the room it has as rows come and go: the last column is
read whole whether or not the rows need a scrollbar."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App, ComposeResult

from agent_tui.tui.widgets.line_table import LineTable
from agent_tui.tui.widgets.resource_table import Column
from tests.support.screen import screen_text


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
