"""A DataTable whose one-line text cells are drawn straight to segments.

`DataTable` draws every cell through Rich's layout pipeline (`Styled(Padding(cell))`
rendered with `console.render_lines`: measuring, wrapping, joining, splitting and
cropping one line of text). A page-down in a long list brings a screenful of rows not
drawn before — 45 rows of 8 columns is 360 cells — and rows coming in behind the cursor
make the table draw every cell on screen again: that pipeline was most of a page-down's
time (`benchmarks/thread_view.py`). `QuickCellsTable` draws the cells every resource
table has — a `Text` on one line, of a row one line high — with the same segments,
made directly; any other cell (a header, a wrapped or justified text) still goes
through `DataTable`.

Measuring is the other cost: `DataTable` measures every new cell to size its columns,
through Rich's `__rich_measure__` with a fresh `console.options` each time (three
terminal-size system calls a cell) — for 200 rows of 4 columns, tens of milliseconds of
opening a screen. A `Text` cell's width is its longest line's `cell_len`, which is what
that measure answers: `QuickCellsTable` reads it directly for the rows of `Text` cells
one line high, and hands any other row to `DataTable`.

`DataTable` keeps no public hook for this: `_render_cell` and `_update_dimensions` are
overridden with its cache, styles and column widths read as upstream does (textual is
pinned). The test `tests/ui/shell/test_quick_cells.py` draws and sizes cells both ways
and fails when they differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.widgets import DataTable
from textual.widgets.data_table import DuplicateKey, Row, RowKey

if TYPE_CHECKING:
    from rich.console import Console

SegmentLines = list[list[Segment]]


def quick_line(
    console: Console,
    cell: Text,
    width: int,
    padding: int,
    pre_style: Style,
    post_style: Style,
) -> list[Segment] | None:
    """`cell` drawn `width` cells wide with `padding` spaces each side, as `DataTable`
    draws it (`Styled(Padding(cell, (0, padding)), pre_style, post_style)` on one line);
    None when it cannot be drawn this way (see `quick_cell`)."""
    inner = width - 2 * padding
    plain = cell.plain
    if (
        inner < 1
        or cell.justify not in (None, "default")
        or cell.overflow == "ignore"
        or "\n" in plain
        or "\t" in plain
    ):
        return None
    line = cell
    if line.cell_len > inner:
        line = cell.copy()
        line.truncate(inner, overflow=cell.overflow or "fold")
        plain = line.plain
    if line.style:
        # Rich joins the wrapped lines first: the base style becomes the first span.
        line = Text(plain, spans=[Span(0, len(plain), line.style), *line.spans])
    segments: list[Segment] = [s for s in line.render(console) if s.text]
    used = sum(s.cell_length for s in segments)
    blank = Style.null()
    if used < inner:
        segments.append(Segment(" " * (inner - used), blank))
    if padding:
        side = Segment(" " * padding, blank)
        segments = [side, *segments, side]
    styled: list[Segment] = []
    for text_part, style, _ in segments:
        if pre_style:
            style = pre_style + style
        if post_style:
            style = style + post_style if style else post_style
        if styled and styled[-1].style is style:
            # One segment where the style is the same object (the padding around plain
            # text): the line's `simplify()` compares neighbours' styles by hash, a good
            # part of drawing a row.
            styled[-1] = Segment(styled[-1].text + text_part, style)
        else:
            styled.append(Segment(text_part, style))
    return styled


CELL_CACHE = 2500  # drawn cells kept: ~6 screens of 45 rows x 8 columns (DataTable: 10,000)


class QuickCellsTable(DataTable[Text]):
    """A `DataTable` of `Text` cells that draws one-line cells directly (see above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each drawn cell holds its own styles (their meta names the row): paging through
        # thousands of rows kept 10,000 of them, a good part of what paging added.
        self._cell_render_cache.maxsize = CELL_CACHE

    def add_text_rows(self, rows: Iterable[tuple[str, Sequence[Text]]]) -> None:
        """Add rows one line high (`(key, cells)`) at the bottom, as `add_row` adds each
        but with the cursor checked and the table told once for them all (`add_row`
        does both per row: a good part of adding hundreds)."""
        columns = self.ordered_columns
        was_empty = self.row_count == 0
        added = False
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = Row(row_key, 1)
            self._new_rows.add(row_key)
            added = True
        if not added:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if was_empty and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self._update_count += 1
        self.check_idle()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Size the columns for `new_rows`: rows of one-line-high `Text` cells here, by
        their lines' widths (what `DataTable`'s measure of a `Text` answers), the others
        (and the table's size) by `DataTable`."""
        columns = self.ordered_columns
        others: list[RowKey] = []
        for row_key in new_rows:
            row = self.rows.get(row_key)
            data = self._data.get(row_key)
            if row is None or data is None:
                continue  # removed before the table was idle
            if row.height != 1 or row.label is not None:
                others.append(row_key)
                continue
            widths = []
            for column in columns:
                cell = data.get(column.key)
                if cell is None:
                    widths.append(0)
                elif isinstance(cell, Text):
                    widths.append(max(map(cell_len, cell.plain.splitlines()), default=0))
                else:
                    break
            else:
                for column, width in zip(columns, widths, strict=True):
                    if width > column.content_width:
                        column.content_width = width
                continue
            others.append(row_key)
        super()._update_dimensions(others)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        if row_index < 0 or column_index < 0:  # the header, row labels
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row is None or row.height != 1 or row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        # The key `DataTable._render_cell` uses: the two share one cache.
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._cell_render_cache.get(cache_key)
        if cached is not None:
            return cached
        cells = self._get_row_renderables(row_index).cells
        cell = cells[column_index] if column_index < len(cells) else None
        if not isinstance(cell, Text):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            fixed,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index})
        line = quick_line(
            self.app.console,
            cell,
            width,
            self.cell_padding,
            pre_style + component_style,
            post_style,
        )
        if line is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        lines = [line]
        self._cell_render_cache[cache_key] = lines
        return lines
