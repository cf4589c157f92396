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

`DataTable` keeps no public hook for this: `_render_cell` is overridden with its cache
and styles read as upstream does (textual is pinned). The test
`tests/ui/shell/test_quick_cells.py` draws cells both ways and fails when they differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.widgets import DataTable

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
