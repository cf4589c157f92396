"""`QuickCellsTable` paints exactly what `DataTable` paints: the same rows side by side, with
the cursor, the hover, zebra stripes, styled and linked text, wide characters and cells cut
to fit. It draws cells its own way through DataTable's private cache (textual is pinned):
this fails when textual's drawing moves away from it."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import DataTable

from agent_tui.tui.widgets.quick_cells import QuickCellsTable

CELLS: list[list[Text]] = [
    [Text("plain"), Text("x" * 40), Text("")],
    [
        Text("base style", style="bold magenta"),
        Text.assemble(("red", "red"), " then ", ("b", "bold")),
        Text("—"),
    ],
    [
        Text("漢字と絵文字🙂" * 3),
        Text("wide 🙂 at the cut 🙂🙂🙂🙂🙂🙂🙂"),
        Text("ok", style="on blue"),
    ],
    [
        Text("link", style=Style(link="https://example.com")),
        Text("a" * 13, overflow="ellipsis"),
        Text("12", style="dim"),
    ],
    [
        Text("cut… " * 5, overflow="ellipsis", no_wrap=True),
        Text("fold " * 5, overflow="fold"),
        Text("crop " * 5, overflow="crop"),
    ],
]


class TwoTables(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DataTable(id="plain", zebra_stripes=True, cursor_type="row")
            yield QuickCellsTable(id="quick", zebra_stripes=True, cursor_type="row")

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            table.add_column(Text("A"), key="a", width=8)
            table.add_column(Text("B"), key="b", width=14)
            table.add_column(Text("C"), key="c")  # as wide as its widest cell
            for index in range(12):
                table.add_row(*[cell.copy() for cell in CELLS[index % len(CELLS)]], key=str(index))


def painted(table: DataTable[Text]) -> list[list[tuple[str, Style | None]]]:
    lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return [[(segment.text, segment.style) for segment in line] for line in lines]


async def paintings(
    app: App[None], pilot: Pilot[None]
) -> list[list[list[tuple[str, Style | None]]]]:
    """Each table painted with the focus elsewhere, then with the focus."""
    shown = []
    for table in app.query(DataTable):
        app.set_focus(None)
        await pilot.pause()
        unfocused = painted(table)
        table.focus()
        await pilot.pause()
        shown.append([*unfocused, *painted(table)])
    return shown


async def test_the_quick_table_paints_what_data_table_paints() -> None:
    app = TwoTables()
    async with app.run_test(size=(160, 20)) as pilot:
        plain = app.query_one("#plain", DataTable)
        quick = app.query_one("#quick", QuickCellsTable)
        await pilot.pause()
        assert plain.size == quick.size
        before, after = await paintings(app, pilot)
        assert after == before
        # The cursor on a row (over coloured text, then a link), the mouse over the next.
        for row in (1, 3):
            for table in (plain, quick):
                table.move_cursor(row=row)
                table.hover_coordinate = table.cursor_coordinate.down()
            before, after = await paintings(app, pilot)
            assert after == before
        # A narrower table cuts the cells: still the same.
        for table in (plain, quick):
            table.styles.width = 30
        before, after = await paintings(app, pilot)
        assert after == before


class FilledAtOnce(App[None]):
    """One table filled row by row (`add_row`), the other at once (`add_text_rows`), then
    a few rows `DataTable` sizes itself: two lines high, labelled, not `Text`."""

    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[tuple[str, str | None]] = []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DataTable(id="plain", cursor_type="row")
            yield QuickCellsTable(id="quick", cursor_type="row")

    def on_mount(self) -> None:
        plain = self.query_one("#plain", DataTable)
        quick = self.query_one("#quick", QuickCellsTable)
        for table in (plain, quick):
            table.add_column(Text("A"), key="a")
            table.add_column(Text("B"), key="b", width=10)
            table.add_column(Text("C"), key="c")
        rows = [(str(index), [c.copy() for c in CELLS[index % len(CELLS)]]) for index in range(9)]
        rows.append(("short", [Text("one")]))  # the other cells empty
        rows.append(("lines", [Text("x"), Text("y"), Text("two\nlines, the second longer")]))
        for key, cells in rows:
            plain.add_row(*cells, key=key)
        quick.add_text_rows((key, [cell.copy() for cell in cells]) for key, cells in rows)
        tables: tuple[DataTable[Any], ...] = (plain, quick)
        for each in tables:
            each.add_row(Text("tall"), Text("row"), Text("a\nb\nc"), height=None, key="tall")
            each.add_row("a [b]str[/b] cell", key="str", label="label")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        assert event.data_table.id is not None
        self.highlighted.append((event.data_table.id, event.row_key.value))


async def test_rows_added_at_once_are_the_rows_added_one_by_one() -> None:
    app = FilledAtOnce()
    async with app.run_test(size=(200, 24)) as pilot:
        plain = app.query_one("#plain", DataTable)
        quick = app.query_one("#quick", QuickCellsTable)
        await pilot.pause()
        assert [str(key.value) for key in quick.rows] == [str(key.value) for key in plain.rows]
        assert [c.content_width for c in quick.ordered_columns] == [
            c.content_width for c in plain.ordered_columns
        ]
        assert quick.virtual_size == plain.virtual_size
        assert sorted(app.highlighted) == [("plain", "0"), ("quick", "0")]
        before, after = await paintings(app, pilot)
        assert after == before
        quick.move_cursor(row=quick.get_row_index("lines"))
        plain.move_cursor(row=plain.get_row_index("lines"))
        before, after = await paintings(app, pilot)
        assert after == before
