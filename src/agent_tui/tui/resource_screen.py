"""The base of every resource screen (assistants, threads, …): one table, one verb set.

Keys (binding ids in brackets, remappable from the config's `[keymap]`):
`enter` open [resource.open] · `/` filter [resource.filter] · `r` refresh
[resource.refresh] · `n` new [resource.new] · `e` edit [resource.edit] · `ctrl+d`
delete, after a confirmation [resource.delete] · `y` raw JSON [resource.raw] · `c` copy
id [resource.copy_id] · `esc` back (or close the filter) [resource.back].

A subclass says what it lists and how:

    class ThreadsScreen(ResourceScreen[Thread]):
        RESOURCE = "thread"              # singular, for messages ("delete a thread")
        RESOURCES = "threads"            # plural, for the title
        VERBS = frozenset({"new", "delete"})   # optional verbs it supports (open is always on)

        def columns(self) -> Sequence[Column[Thread]]: ...
        def item_id(self, item: Thread) -> str: return item.thread_id
        async def fetch_page(self, offset: int, limit: int) -> Sequence[Thread]: ...

        # optional hooks:
        def describe(self, item) -> str          # for the delete question ("thread 1b2c…")
        def open_item(self, item) -> None        # default: the raw JSON view
        def new_item(self) -> None               # after the read-only guard
        def edit_item(self, item) -> None        # after the read-only guard
        async def delete_item(self, item) -> None   # after guard + confirmation
        def heading(self) -> Text | None         # a line above the table (e.g. the search)
        def palette_commands(self) -> Iterable[PaletteCommand]   # ctrl+p entries

Paging: the first `page_size` items load on mount (`reload()`); when the cursor nears
the end, the table asks for the next page (`fetch_page(loaded, page_size)`); a page
shorter than `page_size` ends it. Errors go to `report_error` (one message format,
the connection state in the header). Mutations a subclass adds itself call
`self.refuse_if_readonly("copy a thread")` first and return if it says True.

Helpers for subclasses: `self.table` (the ResourceTable: `selected_item`,
`update_item`, `remove_item`, `append_rows`…), `reload()`, `update_heading()`,
`show_raw(item)`, and `result = await self.attempt(call, doing="copy the thread")`, which
reports an API error and returns `FAILED` (test `result is FAILED`).
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Static

from agent_tui.client.errors import ApiError
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.resource_table import Column, ResourceTable

ItemT = TypeVar("ItemT")
T = TypeVar("T")

_OPTIONAL_VERBS = {"new", "edit", "delete"}


class Failure(enum.Enum):
    FAILED = "failed"


FAILED = Failure.FAILED  # what `ResourceScreen.attempt` returns when the call failed

FILTER_DEBOUNCE_ROWS = 2000  # from this many loaded rows, the filter waits for a pause…
FILTER_DEBOUNCE = 0.15  # …of this many seconds in the typing


class ResourceScreen(AgentScreen[None], Generic[ItemT]):
    DEFAULT_CSS = """
    ResourceScreen #resource-heading { height: auto; padding: 0 1; color: $text-muted; }
    ResourceScreen #resource-filter { dock: bottom; display: none; }
    ResourceScreen #resource-filter.-shown { display: block; }
    ResourceScreen ResourceTable { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="resource.open"),
        Binding("slash", "filter", "Filter", id="resource.filter"),
        Binding("r", "refresh", "Refresh", id="resource.refresh"),
        Binding("n", "new", "New", id="resource.new"),
        Binding("e", "edit", "Edit", id="resource.edit"),
        Binding("ctrl+d", "delete", "Delete", id="resource.delete"),
        # Rarer verbs stay out of the footer (80 columns); `?` lists them.
        Binding("y", "raw", "JSON", show=False, id="resource.raw"),
        Binding("c", "copy_id", "Copy id", show=False, id="resource.copy_id"),
        Binding("escape", "back", "Back", show=False, id="resource.back"),
    ]

    RESOURCE: ClassVar[str] = "item"
    RESOURCES: ClassVar[str] = "items"
    PAGE_SIZE: ClassVar[int] = 100
    _page_size: int | None = None
    _filter_timer: Timer | None = None
    # Said in the heading when the server has none of these at all (what to do next).
    EMPTY_HINT: ClassVar[str] = ""
    _loaded_once = False
    VERBS: ClassVar[frozenset[str]] = frozenset()

    # -- hooks for subclasses ---------------------------------------------------------

    def columns(self) -> Sequence[Column[ItemT]]:
        raise NotImplementedError

    def item_id(self, item: ItemT) -> str:
        raise NotImplementedError

    async def fetch_page(self, offset: int, limit: int) -> Sequence[ItemT]:
        raise NotImplementedError

    def describe(self, item: ItemT) -> str:
        return f"{self.RESOURCE} {self.item_id(item)}"

    @property
    def page_size(self) -> int:
        """Items per request: the class's `PAGE_SIZE` unless this screen set its own."""
        return self._page_size or self.PAGE_SIZE

    @page_size.setter
    def page_size(self, size: int) -> None:
        self._page_size = size

    @property
    def a_resource(self) -> str:
        """The resource with its article, for messages: "a thread", "an assistant"."""
        article = "an" if self.RESOURCE[:1].lower() in "aeiou" else "a"
        return f"{article} {self.RESOURCE}"

    def raw_json(self, item: ItemT) -> Any:
        raw = getattr(item, "raw", None)
        return raw() if callable(raw) else item

    def open_item(self, item: ItemT) -> None:
        self.show_raw(item)

    def new_item(self) -> None:
        self.notify(f"Cannot create {self.a_resource} here", markup=False)

    def edit_item(self, item: ItemT) -> None:
        self.notify(f"Cannot edit {self.a_resource} here", markup=False)

    async def delete_item(self, item: ItemT) -> None:
        raise NotImplementedError

    def item_deleted(self, item: ItemT) -> None:
        """Called once `item` is deleted and its row gone (e.g. to update a count)."""

    def heading(self) -> Text | None:
        return None

    def palette_commands(self) -> Iterable[PaletteCommand]:
        """ctrl+p entries for this screen: the verbs it offers (subclasses add theirs,
        and may `yield from super().palette_commands()`)."""
        yield PaletteCommand(f"Refresh {self.RESOURCES}", "Load the first page again", self.reload)
        yield PaletteCommand(
            f"Filter {self.RESOURCES}", "Filter what is loaded", self.action_filter
        )
        if "new" in self.VERBS:
            yield PaletteCommand(
                f"New {self.RESOURCE}", f"Create {self.a_resource}", self.action_new
            )
        if "delete" in self.VERBS:
            yield PaletteCommand(
                f"Delete {self.RESOURCE}",
                f"Delete the selected {self.RESOURCE}",
                self.action_delete,
            )

    @property
    def breadcrumb_title(self) -> str:
        return self.RESOURCES

    # -- the screen -------------------------------------------------------------------

    @property
    def table(self) -> ResourceTable[ItemT]:
        table: ResourceTable[ItemT] = self.query_one("#resource-table", ResourceTable)
        return table

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield Static(id="resource-heading")
        yield ResourceTable(self.columns(), self.item_id, id="resource-table")
        yield Input(placeholder="filter what is loaded (esc clears)", id="resource-filter")
        yield Footer()

    def on_mount(self) -> None:
        self._deleted: set[str] = set()
        self.table.focus()
        self.reload()

    def _not_deleted(self, items: Sequence[ItemT]) -> list[ItemT]:
        return [item for item in items if self.item_id(item) not in self._deleted]

    def reload(self) -> None:
        """Load the first page again (the cursor stays on the same item if it is still there)."""
        self.table.loading = not self.table.row_count
        # A page still on its way belongs to the old list: it must not land after the new one.
        self.workers.cancel_group(self, "resource-more")
        self._load_first_page()

    @work(exclusive=True, group="resource-load", exit_on_error=False)
    async def _load_first_page(self) -> None:
        table = self.table
        selected = table.selected_item
        try:
            items = await self.fetch_page(0, self.page_size)
        except ApiError as error:
            self.report_error(error, doing=f"load the {self.RESOURCES}")
            return
        finally:
            table.loading = False
        self._note_online()
        self._loaded_once = True
        table.set_rows(self._not_deleted(items), has_more=len(items) >= self.page_size)
        if selected is not None:
            table.move_to(self.item_id(selected))
        self.update_heading()

    @on(ResourceTable.NeedMore)
    def _need_more(self, message: ResourceTable.NeedMore) -> None:
        message.stop()
        self._load_more(message.loaded)

    @work(exclusive=True, group="resource-more", exit_on_error=False)
    async def _load_more(self, offset: int) -> None:
        try:
            items = await self.fetch_page(offset, self.page_size)
        except ApiError as error:
            self.report_error(error, doing=f"load more {self.RESOURCES}")
            return
        self._note_online()
        self.table.append_rows(self._not_deleted(items), has_more=len(items) >= self.page_size)
        self.update_heading()

    def update_heading(self) -> None:
        table = self.table
        text = Text()
        custom = self.heading()
        if custom is not None:
            text.append_text(custom)
            text.append("  ")
        count = table.loaded_count
        text.append(f"{count} {self.RESOURCE if count == 1 else self.RESOURCES} loaded")
        if table.has_more:
            text.append(" · more below", style="italic")
        if table.filter_text:
            shown = len(table.visible_items)
            text.append(f" · filter {table.filter_text!r}: {shown} shown", style="bold")
        elif self._loaded_once and not table.loaded_count and self.EMPTY_HINT:
            text.append(f" · {self.EMPTY_HINT}", style="bold")
        self.query_one("#resource-heading", Static).update(text)

    # -- verbs ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A verb the screen does not offer is hidden from the footer and help.
        return not (action in _OPTIONAL_VERBS and action not in self.VERBS)

    @on(DataTable.RowSelected, "#resource-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def _selected(self) -> ItemT | None:
        item = self.table.selected_item
        if item is None:
            self.notify(f"No {self.RESOURCE} selected", severity="warning", markup=False)
        return item

    def action_open(self) -> None:
        item = self._selected()
        if item is not None:
            self.open_item(item)

    def action_refresh(self) -> None:
        self.reload()

    def action_new(self) -> None:
        if not self.refuse_if_readonly(f"create {self.a_resource}"):
            self.new_item()

    def action_edit(self) -> None:
        item = self._selected()
        if item is not None and not self.refuse_if_readonly(f"edit {self.a_resource}"):
            self.edit_item(item)

    def action_delete(self) -> None:
        item = self._selected()
        if item is None or self.refuse_if_readonly(f"delete {self.a_resource}"):
            return
        question = f"Delete {self.describe(item)}?\nThis cannot be undone."

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._delete(item)

        self.app.push_screen(ConfirmScreen(question, title=f"Delete {self.RESOURCE}"), answered)

    @work(group="resource-delete", exit_on_error=False)
    async def _delete(self, item: ItemT) -> None:
        what = self.describe(item)
        if await self.attempt(self.delete_item(item), doing=f"delete {what}") is FAILED:
            return
        item_id = self.item_id(item)
        # A page asked for before the delete landed may still list it: keep it out.
        self._deleted.add(item_id)
        self.table.remove_item(item_id)
        self.item_deleted(item)
        self.update_heading()
        self.notify(f"Deleted {what}", markup=False)

    def show_raw(self, item: ItemT) -> None:
        title = f"{self.RESOURCE} {self.item_id(item)}"
        self.app.push_screen(RawJsonScreen(self.raw_json(item), title=title))

    def action_raw(self) -> None:
        item = self._selected()
        if item is not None:
            self.show_raw(item)

    def action_copy_id(self) -> None:
        item = self._selected()
        if item is not None:
            item_id = self.item_id(item)
            self.app.copy_to_clipboard(item_id)
            self.notify(f"Copied {self.RESOURCE} id {item_id}", markup=False)

    def action_filter(self) -> None:
        box = self.query_one("#resource-filter", Input)
        box.add_class("-shown")
        box.focus()

    def action_back(self) -> None:
        box = self.query_one("#resource-filter", Input)
        if box.has_class("-shown"):
            self._close_filter(clear=True)
        elif len(self.app.screen_stack) > 2 and self.app.screen is self:
            self.dismiss()

    def _close_filter(self, *, clear: bool) -> None:
        box = self.query_one("#resource-filter", Input)
        if clear:
            box.value = ""
            self.table.set_filter("")
            box.remove_class("-shown")
            self.update_heading()
        self.table.focus()

    @on(Input.Changed, "#resource-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if len(self.table.items) < FILTER_DEBOUNCE_ROWS:
            self._apply_filter()
        else:
            # Refilling thousands of rows costs ~0.25 s CPU: while the user types, wait
            # for a pause instead of refilling the table once per key.
            self._filter_timer = self.set_timer(FILTER_DEBOUNCE, self._apply_filter)

    def _apply_filter(self) -> None:
        self._filter_timer = None
        self.table.set_filter(self.query_one("#resource-filter", Input).value)
        self.update_heading()

    @on(Input.Submitted, "#resource-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._apply_filter()
        self._close_filter(clear=not event.value.strip())

    # -- helpers for subclasses -------------------------------------------------------

    async def attempt(self, call: Awaitable[T], *, doing: str) -> T | Failure:
        """Await `call`; on an API error report it (`Could not {doing}: …`) and return
        `FAILED` (test with `result is FAILED`)."""
        try:
            result = await call
        except ApiError as error:
            self.report_error(error, doing=doing)
            return FAILED
        self._note_online()
        return result

    def _note_online(self) -> None:
        self.agent_app.note_online()
