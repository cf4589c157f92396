"""One table for every resource screen: column specs, inert cells, paging and a filter.

Usage (a resource screen does this for you; see `tui/resource_screen.py`):

    columns = [
        Column("id", "ID", lambda t: t.thread_id, width=36),
        Column("status", "Status", lambda t: status_text(t.status)),
    ]
    table = ResourceTable(columns, item_id=lambda t: t.thread_id)
    table.set_rows(first_page, has_more=True)
    # later, on ResourceTable.NeedMore:
    table.append_rows(next_page, has_more=len(next_page) == page_size)

- Row key = the resource id (`item_id(item)`); `selected_item` is the item under the
  cursor; `get_item(id)`, `update_item(item)`, `remove_item(id)` keep rows in step.
- Every cell is a `Text`: a `str` from a column's `render` is put on one line, cut at
  `CELL_LIMIT` characters and goes through `server_text` (cleaned, never parsed as
  markup). A `render` that returns `Text` must build it from `server_text`/`status_text`
  itself. Either way the cell is put on one line and cut with `…` at the column's
  `max_width` cells (`COLUMN_LIMIT` unless set), so one long server string cannot push
  the other columns off screen; the filter still searches the whole text. A cell wider
  than its column as drawn (a fixed `width`) ends in `…` too, never in a silent cut.
- A column with `flex` (a weight) takes its share of the room the other columns leave,
  `width` at least and `max_width` at most, again on every resize: a wider terminal
  shows more of a long name.
- A column with `needs` (cells of the table's width) is drawn only while the table is at
  least that wide: a narrow pane drops the columns a user needs least, whole, rather than
  cutting the last ones off at its edge. The filter still searches them.
- Rows are added in chunks of `CHUNK` per message-loop turn: DataTable measures every cell
  on insert, so 10,000 rows at once would freeze the UI for a while.
- `set_filter(text)` shows only the loaded items whose rendered cells contain `text`
  (case-insensitive). It filters what is loaded; it never asks the server.
- When the cursor comes within `threshold` rows of the end (or the table is shorter than
  that) and `has_more` is set and no filter is active, the table posts `NeedMore` once;
  the next `append_rows`/`set_rows` re-arms it.
- `down`/`pagedown` pressed on the last row loaded while more are coming are not lost:
  the rest of the move is made when the rows are in (unless the cursor moved meanwhile).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets.data_table import ColumnKey, RowDoesNotExist

from agent_tui.text.sanitize import clean_text
from agent_tui.tui.widgets.quick_cells import QuickCellsTable
from agent_tui.tui.widgets.status_cells import STATUS_STYLES as STATUS_STYLES
from agent_tui.tui.widgets.status_cells import status_style as status_style
from agent_tui.tui.widgets.status_cells import status_text as status_text
from agent_tui.tui.widgets.text import server_text

ItemT = TypeVar("ItemT")

CELL_LIMIT = 200  # characters of a str cell: one 10 KB message must not make a 10 KB column
COLUMN_LIMIT = 60  # cells a column shows at most, unless it sets its own `max_width`
NAME_WIDTH = 32  # names (assistants, deployments): the other columns must stay in view
GRAPH_WIDTH = 24  # graph ids


def one_line(value: str, limit: int = CELL_LIMIT) -> str:
    """`value` on one line (a row is one line high) and at most `limit` characters,
    cleaned before it is cut (a cut escape sequence would leave its tail as text)."""
    value = clean_text(value)
    if "\n" in value or "\t" in value or "\r" in value:
        value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def fit_cell(cell: Text, max_width: int) -> Text:
    """`cell` on one line (a row is one line high) and at most `max_width` cells wide;
    drawn in a narrower column it ends in `…` (Rich cuts it so when it paints)."""
    cell = Text(" ").join(cell.split("\n", allow_blank=True)) if "\n" in cell.plain else cell.copy()
    if cell.cell_len > max_width:
        cell.truncate(max_width, overflow="ellipsis")
    cell.no_wrap, cell.overflow = True, "ellipsis"
    return cell


@dataclass(frozen=True, slots=True)
class Column(Generic[ItemT]):
    """One column: its key, header label, how to render an item, an optional fixed
    width, and the most cells a cell may take before it is cut with `…`. With `flex`
    (a weight), `width` is its least and it grows into the room the table has. With
    `needs`, it is drawn only in a table at least that many cells wide."""

    key: str
    label: str
    render: Callable[[ItemT], Text | str]
    width: int | None = None
    max_width: int = COLUMN_LIMIT
    flex: int = 0
    needs: int = 0


ROW_BINDINGS: list[BindingType] = [
    Binding("up", "cursor_up", "Cursor up", show=False, id="resource_table.cursor_up"),
    Binding("down", "cursor_down", "Cursor down", show=False, id="resource_table.cursor_down"),
    Binding("pageup", "page_up", "Page up", show=False, id="resource_table.page_up"),
    Binding("pagedown", "page_down", "Page down", show=False, id="resource_table.page_down"),
    # Rows matter more than columns here: home/end (and vi's g/G) go to the first/last row.
    Binding("home,ctrl+home,g", "scroll_top", "First row", show=False, id="resource_table.top"),
    Binding("end,ctrl+end,G", "scroll_bottom", "Last row", show=False, id="resource_table.bottom"),
]
"""The row keys of a table of resources (their ids: one keymap entry moves them in every
table, `LineTable` too)."""


class ResourceTable(QuickCellsTable, Generic[ItemT]):
    """A DataTable of resources; see the module docstring for the API."""

    CHUNK: ClassVar[int] = 250

    # DataTable's own bindings, redeclared with ids (keys are remapped by id).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", show=False, id="resource_table.select"),
        Binding("right", "cursor_right", "Cursor right", show=False, id="resource_table.right"),
        Binding("left", "cursor_left", "Cursor left", show=False, id="resource_table.left"),
        Binding("ctrl+pageup", "page_left", "Page left", show=False, id="resource_table.page_left"),
        Binding(
            "ctrl+pagedown", "page_right", "Page right", show=False, id="resource_table.page_right"
        ),
        *ROW_BINDINGS,
    ]

    class NeedMore(Message):
        """The cursor is near the end of the loaded rows and the server has more."""

        def __init__(self, table: ResourceTable[object], loaded: int) -> None:
            super().__init__()
            self.table = table
            self.loaded = loaded  # how many items are loaded: the next page's offset

        @property
        def control(self) -> ResourceTable[object]:
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
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self._columns = list(columns)
        self._item_id = item_id
        self.threshold = threshold
        self.has_more = False
        self._more_requested = False
        self._items: dict[str, ItemT] = {}  # insertion order = load order
        self._cells: dict[str, list[Text]] = {}
        self._haystack: dict[str, str] = {}  # lower-cased plain text of all cells
        self._pending: list[str] = []  # ids waiting to be added to the DataTable
        self._filter = ""
        self._adding = False
        self._owed = 0  # rows a move down could not make yet: made when more rows come
        self._owed_from = -1  # … from this row (a move elsewhere meanwhile drops them)
        self._shown = list(range(len(self._columns)))  # the columns drawn (`needs`)

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        for index in self._shown:
            column = self._columns[index]
            self.add_column(Text(column.label), key=column.key, width=column.width)

    def on_resize(self) -> None:
        self._share_room()

    def _columns_for(self, width: int) -> list[int]:
        return [i for i, column in enumerate(self._columns) if column.needs <= width]

    def _drop_or_restore_columns(self) -> None:
        """Draw the columns the table is wide enough for (`needs`): the table is built
        again when they change (a resize across a column's need, rarely)."""
        width = self.scrollable_content_region.width
        shown = self._columns_for(width) if width > 0 else self._shown
        if shown == self._shown:
            return
        selected = self.selected_item
        self._shown = shown
        self.clear(columns=True)
        self._add_columns()
        self._pending = [key for key in self._items if self._matches(key)]
        self._add_pending_chunk()
        if selected is not None:
            self.move_to(self._item_id(selected))

    def _shown_cells(self, key: str) -> list[Text]:
        cells = self._cells[key]
        return [cells[index] for index in self._shown]

    def _share_room(self) -> None:
        """Give the `flex` columns the room the others leave, by weight."""
        self._drop_or_restore_columns()
        flexible = [c for c in self._columns if c.flex and c.key in self.columns]
        if not flexible:
            return
        others = sum(
            self.columns[ColumnKey(c.key)].get_render_width(self)
            for c in self._columns
            if not c.flex and c.key in self.columns
        )
        room = self.scrollable_content_region.width - others
        room -= len(flexible) * 2 * self.cell_padding
        weights = sum(c.flex for c in flexible)
        changed = False
        for column in flexible:
            least = column.width or 1
            width = max(least, min(column.max_width, room * column.flex // weights))
            shown = self.columns[ColumnKey(column.key)]
            if shown.width != width:
                shown.width, changed = width, True
        if changed:
            # DataTable has no call to resize a column: its widths are read when it
            # measures (after this flag) and its cached lines are of the old widths.
            self._require_update_dimensions = True
            self._clear_caches()
            self.refresh()

    def watch_loading(self, loading: bool) -> None:
        # Textual leaves a focused widget that is loading out of the key bindings (the
        # screen's `enter` "Open" shows in the footer meanwhile) but does not refresh the
        # footer when loading ends: without this the footer kept the loading-time keys
        # until some other event happened to refresh it, and that differed run to run.
        if self.is_attached:
            self.screen.refresh_bindings()

    # -- data -------------------------------------------------------------------------

    @property
    def items(self) -> list[ItemT]:
        """Every loaded item, in load order (filtered out or not)."""
        return list(self._items.values())

    @property
    def visible_items(self) -> list[ItemT]:
        """The loaded items that pass the filter, in load order."""
        return [self._items[key] for key in self._items if self._matches(key)]

    @property
    def loaded_count(self) -> int:
        return len(self._items)

    @property
    def filter_text(self) -> str:
        return self._filter

    @property
    def loading_rows(self) -> bool:
        """True while rows are still being added chunk by chunk."""
        return bool(self._pending)

    @property
    def selected_item(self) -> ItemT | None:
        """The item under the cursor, or None when the table is empty."""
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:  # the cursor is outside the rows (e.g. mid-clear)
            return None
        return self._items.get(str(row_key.value))

    def get_item(self, item_id: str) -> ItemT | None:
        return self._items.get(item_id)

    def set_rows(self, items: Iterable[ItemT], *, has_more: bool = False) -> None:
        """Replace every row with `items`; the cursor goes back to the top."""
        self.clear()
        self._items.clear()
        self._cells.clear()
        self._haystack.clear()
        self._pending.clear()
        self.append_rows(items, has_more=has_more)

    def append_rows(self, items: Iterable[ItemT], *, has_more: bool = False) -> None:
        """Add `items` after the loaded ones (an item already loaded is updated in place)."""
        self.has_more = has_more
        self._more_requested = False
        fresh: list[str] = []
        for item in items:
            key = self._item_id(item)
            if key in self._items:
                self.update_item(item)
                continue
            self._remember(key, item)
            if self._matches(key):
                fresh.append(key)
        start_now = not self._pending
        self._pending.extend(fresh)
        if start_now:
            self._add_pending_chunk()

    def update_item(self, item: ItemT) -> None:
        """Re-render the row of an item already loaded (e.g. after an edit)."""
        key = self._item_id(item)
        if key not in self._items:
            self.append_rows([item], has_more=self.has_more)
            return
        self._remember(key, item)
        if key in self.rows:
            for index in self._shown:
                column, cell = self._columns[index], self._cells[key][index]
                self.update_cell(key, column.key, cell, update_width=True)

    def remove_item(self, item_id: str) -> None:
        """Forget an item and drop its row (e.g. after a delete)."""
        self._items.pop(item_id, None)
        self._cells.pop(item_id, None)
        self._haystack.pop(item_id, None)
        if item_id in self._pending:
            self._pending.remove(item_id)
        with contextlib.suppress(RowDoesNotExist):
            self.remove_row(item_id)

    def set_filter(self, text: str) -> None:
        """Show only loaded items whose cells contain `text` (case-insensitive)."""
        text = text.strip().lower()
        if text == self._filter:
            return
        selected = self.selected_item
        self._filter = text
        matched = [key for key in self._items if self._matches(key)]
        if (
            not self._pending
            and len(matched) == self.row_count
            and matched == [row_key.value for row_key in self.rows]
        ):
            return  # the same rows (typing "i", "it", "ite"… over ids): nothing to redo
        self.clear()
        self._pending = matched
        self._add_pending_chunk()
        if selected is not None:
            self.move_to(self._item_id(selected))

    def move_to(self, item_id: str) -> bool:
        """Put the cursor on the item's row, if it is shown."""
        try:
            index = self.get_row_index(item_id)
        except RowDoesNotExist:
            return False
        self.move_cursor(row=index)
        return True

    # -- moves past the rows loaded ----------------------------------------------------

    def action_cursor_down(self) -> None:
        self._move_down(1, super().action_cursor_down)

    def action_page_down(self) -> None:
        page = self.scrollable_content_region.height - (
            self.header_height if self.show_header else 0
        )
        self._move_down(page, super().action_page_down)

    def _move_down(self, rows: int, move: Callable[[], None]) -> None:
        before = self.cursor_row
        move()
        short = before + rows - self.cursor_row
        last = self.row_count - 1
        if short > 0 and self.cursor_row == last and (self._pending or self.has_more):
            self._owed = (self._owed if self._owed_from == last else 0) + short
            self._owed_from = last

    def _pay_owed(self) -> None:
        """Rows came in: make the moves down that the last row held up."""
        if not self._owed:
            return
        if self.cursor_row != self._owed_from or self._filter:
            self._owed = 0
            return
        target = min(self.cursor_row + self._owed, self.row_count - 1)
        self._owed -= target - self.cursor_row
        self._owed_from = target
        if not (self._pending or self.has_more):
            self._owed = 0
        self.move_cursor(row=target)

    # -- internals --------------------------------------------------------------------

    def _remember(self, key: str, item: ItemT) -> None:
        full = [self._cell(column, item) for column in self._columns]
        self._items[key] = item
        self._cells[key] = [
            fit_cell(cell, column.max_width)
            for cell, column in zip(full, self._columns, strict=True)
        ]
        self._haystack[key] = "\x00".join(cell.plain for cell in full).lower()

    @staticmethod
    def _cell(column: Column[ItemT], item: ItemT) -> Text:
        value = column.render(item)
        if isinstance(value, Text):
            return value
        return server_text(one_line(value))

    def _matches(self, key: str) -> bool:
        return not self._filter or self._filter in self._haystack.get(key, "")

    def _add_pending_chunk(self) -> None:
        chunk, self._pending = self._pending[: self.CHUNK], self._pending[self.CHUNK :]
        self._adding = True  # add_row moves the cursor: judge "near the end" after the chunk
        try:
            for key in chunk:
                if key in self._cells and key not in self.rows:
                    self.add_row(*self._shown_cells(key), key=key)
        finally:
            self._adding = False
        self._pay_owed()
        if self._pending:
            # The rest on a later turn of the message loop, so keys stay responsive.
            self.call_later(self._add_pending_chunk)
        else:
            self._share_room()  # the rows may have widened an auto column, or a scrollbar
            self._check_need_more()

    def _check_need_more(self) -> None:
        # A filter works on what is loaded: it never pulls in the rest of the server.
        if self._adding or not self.has_more or self._more_requested or self._pending:
            return
        if self._filter:
            return
        if self.row_count and self.cursor_row < self.row_count - self.threshold:
            return
        self._more_requested = True
        self.post_message(self.NeedMore(self, len(self._items)))  # type: ignore[arg-type]

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        if old.row != new.row:
            self._check_need_more()
