"""A table that draws its rows from a list of items as they scroll into view (Line API).

`ResourceTable` (a `DataTable`) holds every row it was given as widgets' data: eight
`Text` cells a row, a row object, a cell cache. Paging through 5,000 checkpoints grew
the process by 60-80 MB that way, and every page of rows added bumped a counter that
drew every cell on screen again (`benchmarks/thread_view.py`). `LineTable` is a
`ScrollView` whose `virtual_size` is the rows' count: it keeps the items (the caller's
own objects, in a list) and draws a line only when Textual asks for it
(`render_line`), from the item's columns, with a few hundred drawn lines kept. A row
off screen holds nothing but the item.

It looks like the resource tables (`DataTable`'s styles: a header, zebra stripes, a
row cursor) and answers the same keys, by the same binding ids, so a keymap applies
to both. Cells are one line: each column's `render` gives a `Text` or a `str`, put on
one line, cut with `…` at the column's width (`resource_table.fit_cell`). A column has
a fixed `width`, or with `flex` takes its share of the room the others leave.

Usage: `set_rows(items, has_more=)`, `append_rows(items, has_more=)` (on `NeedMore`,
posted once when the cursor comes within `threshold` rows of the end), `update_item`,
`get_item`, `move_to(item_id)`, `move_cursor(row=)`, `selected_item`, `cursor_row`;
`RowHighlighted` is posted when the cursor moves to another row. `down`/`pagedown`
pressed on the last row while more rows are coming are made when they come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from agent_tui.tui.widgets.draw_ahead import DrawAhead
from agent_tui.tui.widgets.laid_out_once import expect_vertical_scroll_bar, grown_below
from agent_tui.tui.widgets.quick_cells import quick_line
from agent_tui.tui.widgets.resource_table import ROW_BINDINGS, Column, fit_cell, one_line
from agent_tui.tui.widgets.text import server_text

ItemT = TypeVar("ItemT")

LINES_KEPT = 400  # drawn lines: a few screens (pages come back drawn when paging up)
PADDING = 1  # cells each side of a cell, as DataTable's `cell_padding`


class LineTable(ScrollView, Generic[ItemT], can_focus=True):
    """Rows drawn from items on demand; see the module docstring."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-table--header",
        "line-table--cursor",
        "line-table--even-row",
        "line-table--odd-row",
    }

    # DataTable's looks (its DEFAULT_CSS, for these parts).
    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .line-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .line-table--header { background-tint: $foreground 5%; }
        }
        &:dark { & > .line-table--even-row { background: $surface-darken-1 40%; } }
        & > .line-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .line-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .line-table--odd-row { }
        & > .line-table--even-row { background: $surface-lighten-1 50%; }
        & > .line-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = ROW_BINDINGS  # the resource tables' row keys

    class NeedMore(Message):
        """The cursor is near the end of the loaded rows and the server has more."""

        def __init__(self, table: LineTable[object], loaded: int) -> None:
            super().__init__()
            self.table = table
            self.loaded = loaded  # how many items are loaded: the next page's offset

        @property
        def control(self) -> LineTable[object]:
            return self.table

    class RowHighlighted(Message):
        """The cursor moved to another row (`cursor_row`)."""

        def __init__(self, table: LineTable[object], cursor_row: int) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row

        @property
        def control(self) -> LineTable[object]:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column[ItemT]],
        item_id: Callable[[ItemT], str],
        *,
        threshold: int = 20,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.columns = list(columns)
        self._item_id = item_id
        self.threshold = threshold
        self.has_more = False
        self.header_height = 1
        self.show_header = True
        self._more_requested = False
        self._items: list[ItemT] = []
        self._index: dict[str, int] = {}
        self._cursor = 0
        self._widths = [column.width or 1 for column in self.columns]
        self._lines: LRUCache[tuple[object, ...], Strip] = LRUCache(LINES_KEPT)
        self._drawn = 0  # bumped when what the rows show changed: drawn lines are stale
        self._pass: tuple[Style, object] = (Style.null(), None)
        # The page below the screen's rows and the page above, drawn once it has painted:
        # a page-down finds its rows drawn, only the cursor's line is drawn on the key.
        self._ahead = DrawAhead(self, self._rows_around, self._draw_row)
        self._versions: dict[int, int] = {}  # rows drawn again since `_drawn` was bumped
        self._owed = 0  # rows a move down could not make yet: made when more rows come
        self._owed_from = -1  # … from this row (a move elsewhere meanwhile drops them)

    # -- data -------------------------------------------------------------------------

    @property
    def items(self) -> list[ItemT]:
        """Every loaded item, in load order."""
        return list(self._items)

    @property
    def visible_items(self) -> list[ItemT]:
        return list(self._items)

    @property
    def row_count(self) -> int:
        return len(self._items)

    @property
    def loaded_count(self) -> int:
        return len(self._items)

    @property
    def loading_rows(self) -> bool:
        """Rows go in at once (nothing is built for them): never still adding."""
        return False

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def selected_item(self) -> ItemT | None:
        """The item under the cursor, or None when the table is empty."""
        return self._items[self._cursor] if self._items else None

    def get_item(self, item_id: str) -> ItemT | None:
        index = self._index.get(item_id)
        return None if index is None else self._items[index]

    def get_row(self, item_id: str) -> list[Text]:
        """The cells of an item's row, as drawn."""
        index = self._index[item_id]
        return [self._cell(column, index) for column in self.columns]

    def get_row_index(self, item_id: str) -> int:
        return self._index[item_id]

    def set_rows(self, items: Iterable[ItemT], *, has_more: bool = False) -> None:
        """Replace every row with `items`; the cursor goes back to the top."""
        self._items, self._index, self._versions = [], {}, {}
        self._cursor, self._owed = 0, 0
        self._drawn += 1
        self.scroll_to(y=0, animate=False, immediate=True)
        self.append_rows(items, has_more=has_more)
        self.post_message(self.RowHighlighted(self, 0))  # type: ignore[arg-type]

    def append_rows(self, items: Iterable[ItemT], *, has_more: bool = False) -> None:
        """Add `items` after the loaded ones (an item already loaded is updated in place)."""
        self.has_more = has_more
        self._more_requested = False
        for item in items:
            key = self._item_id(item)
            index = self._index.get(key)
            if index is not None:
                self._items[index] = item
                self._versions[index] = self._versions.get(index, 0) + 1  # drawn again
                continue
            self._index[key] = len(self._items)
            self._items.append(item)
        self._size_virtually()
        self.refresh()
        self._pay_owed()
        self._check_need_more()

    def update_item(self, item: ItemT) -> None:
        """Draw an item's row again (the item changed, or what its cells show)."""
        index = self._index.get(self._item_id(item))
        if index is None:
            self.append_rows([item], has_more=self.has_more)
            return
        self._items[index] = item
        # Its own lines only: the other rows' drawn lines still hold (loading a page of
        # checkpoints completes the rows before it: bumping `_drawn` drew every row
        # on screen again, and threw away the rows drawn ahead).
        self._versions[index] = self._versions.get(index, 0) + 1
        self.refresh_line(index + self.header_height)

    def move_to(self, item_id: str) -> bool:
        """Put the cursor on the item's row, if it is loaded."""
        index = self._index.get(item_id)
        if index is None:
            return False
        self.move_cursor(row=index)
        return True

    def move_cursor(self, *, row: int, scroll: bool = True) -> None:
        row = max(0, min(row, len(self._items) - 1))
        before, self._cursor = self._cursor, row
        top = self.scroll_y
        if scroll:
            self._scroll_to_cursor()
        if row != before:
            if self.scroll_y == top:
                # Only the two rows the cursor left and came to look different (their
                # lines count the header: virtual line = row + header).
                self.refresh_line(before + self.header_height)
                self.refresh_line(row + self.header_height)
            else:
                self.refresh()
            self.post_message(self.RowHighlighted(self, row))  # type: ignore[arg-type]
            self._check_need_more()

    # -- keys ---------------------------------------------------------------------------

    @property
    def page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - self.header_height)

    def action_cursor_up(self) -> None:
        self.move_cursor(row=self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move_down(1)

    def action_page_up(self) -> None:
        page = self.page_rows
        self.scroll_to(y=self.scroll_y - page, animate=False, immediate=True)
        self.move_cursor(row=self._cursor - page)

    def action_page_down(self) -> None:
        page = self.page_rows
        self.scroll_to(y=self.scroll_y + page, animate=False, immediate=True)
        self._move_down(page)

    def action_scroll_top(self) -> None:
        self.move_cursor(row=0)

    def action_scroll_bottom(self) -> None:
        self.move_cursor(row=len(self._items) - 1)

    def _move_down(self, rows: int) -> None:
        before = self._cursor
        self.move_cursor(row=before + rows)
        short = before + rows - self._cursor
        last = len(self._items) - 1
        if short > 0 and self._cursor == last and self.has_more:
            self._owed = (self._owed if self._owed_from == last else 0) + short
            self._owed_from = last

    def _pay_owed(self) -> None:
        """Rows came in: make the moves down that the last row held up."""
        if not self._owed:
            return
        if self._cursor != self._owed_from:
            self._owed = 0
            return
        target = min(self._cursor + self._owed, len(self._items) - 1)
        self._owed -= target - self._cursor
        self._owed_from = target
        if not self.has_more:
            self._owed = 0
        self.move_cursor(row=target)

    def _check_need_more(self) -> None:
        if not self.has_more or self._more_requested:
            return
        if self._items and self._cursor < len(self._items) - self.threshold:
            return
        self._more_requested = True
        self.post_message(self.NeedMore(self, len(self._items)))  # type: ignore[arg-type]

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < self.header_height:
            return
        row = int(self.scroll_y) + offset.y - self.header_height
        if row < len(self._items):
            self.move_cursor(row=row)

    # -- layout -----------------------------------------------------------------------

    def on_resize(self) -> None:
        self._share_room()
        self._size_virtually()
        self._scroll_to_cursor()

    def watch_show_vertical_scrollbar(self) -> None:
        # Rows that overflow bring a scrollbar without resizing the table: the flex
        # columns give it their room (or take back what it left), so the last column
        # is never cut by the scrollbar's width.
        self._share_room()
        self._size_virtually()
        self.refresh()

    def _share_room(self) -> None:
        """Give the `flex` columns the room the others leave, by weight."""
        flexible = [i for i, c in enumerate(self.columns) if c.flex]
        if not flexible:
            return
        fixed = sum(w for i, w in enumerate(self._widths) if i not in flexible)
        room = self.scrollable_content_region.width - fixed - 2 * PADDING * len(self.columns)
        weights = sum(self.columns[i].flex for i in flexible)
        before = list(self._widths)
        for i in flexible:
            column = self.columns[i]
            least = column.width or 1
            self._widths[i] = max(least, min(column.max_width, room * column.flex // weights))
        if self._widths != before:
            self._drawn += 1  # drawn lines are the old widths

    def _size_virtually(self) -> None:
        width = sum(self._widths) + 2 * PADDING * len(self.columns)
        size = Size(width, len(self._items) + self.header_height)
        if grown_below(self, size):  # more rows below rows that overflow: no layout
            return
        self.virtual_size = size
        expect_vertical_scroll_bar(self, size.height)

    def _scroll_to_cursor(self) -> None:
        top = int(self.scroll_y)
        page = self.page_rows
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, immediate=True)
        elif self._cursor >= top + page:
            self.scroll_to(y=self._cursor - page + 1, animate=False, immediate=True)

    # -- drawing ------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line of this pass is drawn with, read once (`rich_style` walks the
        # widget's ancestors: a good part of a line's time when read for each).
        self._pass = (self.rich_style, self.get_pseudo_class_state())
        lines = super().render_lines(crop)
        self._ahead.painted()
        return lines

    def _rows_around(self) -> list[int]:
        top, page = int(self.scroll_y), self.page_rows
        rows = [*range(top + page, top + 2 * page), *range(top - 1, top - page - 1, -1)]
        return [i for i in rows if 0 <= i < len(self._items)] if self.size.width > 0 else []

    def _draw_row(self, index: int) -> None:
        self._line(index, self.size.width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base, _ = self._pass
        if y < self.header_height:
            line = self._line(-1, width)
        else:
            index = scroll_y + y - self.header_height
            if index >= len(self._items):
                return Strip.blank(width, base)
            line = self._line(index, width)
        if scroll_x == 0 and line.cell_length == width:
            return line
        return line.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)

    def _line(self, index: int, width: int) -> Strip:
        """Row `index` (-1: the header), every column, filled out to `width`."""
        cursor = index == self._cursor and index >= 0
        key = (index, self._versions.get(index, 0), cursor, width, self._drawn, self._pass)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        if index < 0:
            row_style = self.get_component_rich_style("line-table--header")
        else:
            parity = "line-table--odd-row" if index % 2 else "line-table--even-row"
            row_style = self.get_component_rich_style(parity)
        post = Style.null()
        if cursor:
            look = self.get_component_rich_style("line-table--cursor")
            post = Style.from_color(look.color) + Style.from_color(bgcolor=look.bgcolor)
            row_style = row_style + look
        segments: list[Segment] = []
        console = self.app.console
        for column, inner in zip(self.columns, self._widths, strict=True):
            cell = self._cell(column, index)
            drawn = quick_line(console, cell, inner + 2 * PADDING, PADDING, row_style, post)
            if drawn is None:  # not a one-line cell: shown as its plain text
                plain = Text(one_line(cell.plain), overflow="ellipsis", no_wrap=True)
                drawn = quick_line(console, plain, inner + 2 * PADDING, PADDING, row_style, post)
            segments.extend(drawn or ())
        used = sum(self._widths) + 2 * PADDING * len(self.columns)
        if width > used:
            segments.append(Segment(" " * (width - used), row_style))
        strip = Strip(segments).simplify()
        self._lines[key] = strip
        return strip

    def _cell(self, column: Column[ItemT], index: int) -> Text:
        if index < 0:
            return Text(column.label)
        value = column.render(self._items[index])
        cell = value if isinstance(value, Text) else server_text(one_line(value))
        return fit_cell(cell, column.max_width)
