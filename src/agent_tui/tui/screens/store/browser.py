"""`:store` — the agent server's long-term memory: namespaces as a tree, items in a table.

Left, the namespaces (`tui/screens/store/namespace_tree.py`): every prefix a node, nested by depth,
with the number of items once a prefix's items are loaded. Right, the items under the
selected prefix (key, namespace, updated in UTC, the value on one line), in the
server's order (the in-memory server lists them as they were first put), paged in as the cursor nears the end. `tab` moves between the two.

Keys beyond the shared ones (`resource_screen.py`): `/` filters what is loaded ·
`s` searches the selected prefix on the server (a JSON filter and a natural-language
query; when the server has no store index the heading says the query is not ranked) ·
`enter` shows an item whole · `n` puts a new item in the selected namespace · `e`
edits the selected item's value · `ctrl+d` deletes it after a confirmation · `r`
reloads the namespaces and the items. `n`, `e` and `ctrl+d` are refused in read-only mode.

`:store PREFIX` opens on a dotted prefix (`:store users.u1`); `M` in a thread view opens
the namespaces that mention the thread's id, its assistant's or its graph's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Static, Tree

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models.memory import Namespace, StoreItem, dotted
from agent_tui.store.item_input import (
    ItemDraft,
    StoreInputError,
    StoreSearch,
    parse_namespace,
    unranked,
)
from agent_tui.store.tree import (
    NAMESPACE_CAP,
    NAMESPACE_PAGE,
    Mention,
    item_row_id,
    mentioning,
    prefix_tree,
    value_preview,
)
from agent_tui.text.sanitize import clean_text
from agent_tui.text.time_text import utc_seconds
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.screens.store.item_form import ItemFormScreen
from agent_tui.tui.screens.store.namespace_tree import NamespaceTree
from agent_tui.tui.screens.store.search import StoreSearchScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.resource_table import Column, ResourceTable
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

NO_INDEX = (
    "this server has no store index: the query is ignored, results are not ranked "
    "(the filter still applies)"
)


class StoreScreen(ResourceScreen[StoreItem]):
    RESOURCE = "item"
    RESOURCES = "items"
    PAGE_SIZE = 50
    EMPTY_HINT = "none here: n puts one"
    VERBS = frozenset({"new", "edit", "delete"})
    DEFAULT_CSS = """
    StoreScreen #store-body { height: 1fr; }
    StoreScreen #store-body ResourceTable { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "search", "Search", id="store.search"),
    ]

    def __init__(
        self,
        client: AgentServerClient,
        *,
        prefix: Namespace = (),
        mentions: Sequence[Mention] = (),
    ) -> None:
        """`prefix`: only namespaces under it; `mentions`: only those that mention an id."""
        super().__init__()
        self.client = client
        self.root = prefix
        self.mentions = list(mentions)
        # What the table lists: items under this prefix (None: nothing picked yet).
        self.prefix: Namespace | None = None if mentions else prefix
        self.search = StoreSearch()
        self.namespaces: list[Namespace] = []
        self.namespaces_cut = False  # more than NAMESPACE_CAP: the tree shows the first ones
        self.namespaces_loaded = False
        self.unranked = False  # the last query came back with no scores (no store index)
        self._select_after_load: str | None = None
        self._items_of: Namespace | None = None  # the prefix whose items the table holds

    @property
    def breadcrumb_title(self) -> str:
        return "store"

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield Static(id="resource-heading")
        with Horizontal(id="store-body"):
            yield NamespaceTree(self._root_label(), self.root, id="store-tree")
            yield ResourceTable(self.columns(), self.item_id, id="resource-table")
        yield Input(placeholder="filter what is loaded (esc clears)", id="resource-filter")
        yield Footer()

    def _root_label(self) -> str:
        if self.mentions:
            return "mentioning"
        return dotted(self.root) or "all namespaces"

    @property
    def namespace_tree(self) -> NamespaceTree:
        return self.query_one("#store-tree", NamespaceTree)

    def on_mount(self) -> None:
        super().on_mount()
        self.namespace_tree.focus()
        self._load_namespaces()

    # -- the table --------------------------------------------------------------------

    def columns(self) -> Sequence[Column[StoreItem]]:
        return [
            Column("key", "Key", lambda i: i.key, max_width=28),
            Column("namespace", "Namespace", lambda i: dotted(i.ns), max_width=28),
            Column("updated", "Updated (UTC)", lambda i: utc_seconds(i.updated_at), width=19),
            Column("value", "Value", lambda i: value_preview(i.value)),
        ]

    def item_id(self, item: StoreItem) -> str:
        return item_row_id(item)

    def describe(self, item: StoreItem) -> str:
        return f"item {item.key!r} in {dotted(item.ns)}"

    def raw_json(self, item: StoreItem) -> Any:
        return item.raw()

    async def fetch_page(self, offset: int, limit: int) -> Sequence[StoreItem]:
        if self.prefix is None:
            return []
        items = await self.client.store.search_items(
            self.prefix, limit=limit, offset=offset, **self.search.kwargs()
        )
        if offset == 0:
            self.unranked = bool(self.search.query) and unranked(items)
            self._items_of = self.prefix
        return items

    def update_heading(self) -> None:
        super().update_heading()
        table = self.table
        if self.prefix is not None and self._items_of == self.prefix and not table.filter_text:
            self.namespace_tree.note_items(self.prefix, table.loaded_count, more=table.has_more)
        if self._select_after_load and table.move_to(self._select_after_load):
            self._select_after_load = None

    def heading(self) -> Text | None:
        text = Text()
        if self.mentions:
            said = ", ".join(f"{m.what} {m.id}" for m in self.mentions)
            text.append_text(server_text(f"namespaces mentioning {said}", style="bold"))
            if self.namespaces_loaded and not self.namespaces:
                text.append(" · none do (:store lists every namespace)", style="bold")
            text.append("\n")
        if self.namespaces_loaded:
            count = len(self.namespaces)
            text.append(f"{count}{'+' if self.namespaces_cut else ''} namespaces · ")
        if self.prefix is None:
            text.append("pick a namespace on the left")
        else:
            where = dotted(self.prefix)
            text.append_text(server_text(f"under {where}" if where else "every item"))
        if self.search.active:
            text.append_text(server_text(f" · search: {self.search.describe()}", style="bold"))
            if self.unranked:
                text.append(f"\n{NO_INDEX}", style="bold yellow")
        return text

    # -- the namespaces -----------------------------------------------------------------

    @work(exclusive=True, group="store-namespaces", exit_on_error=False)
    async def _load_namespaces(self) -> None:
        found: list[Namespace] = []
        cut = False
        try:
            while True:
                page = await self.client.store.list_namespaces(
                    self.root or None, limit=NAMESPACE_PAGE, offset=len(found)
                )
                found.extend(page)
                if len(page) < NAMESPACE_PAGE:
                    break
                if len(found) >= NAMESPACE_CAP:
                    cut = True
                    break
        except ApiError as error:
            self.report_error(error, doing="list the Store's namespaces")
            return
        self._note_online()
        if self.mentions:
            found = mentioning(found, self.mentions)
        self.namespaces, self.namespaces_cut, self.namespaces_loaded = found, cut, True
        tree = self.namespace_tree
        tree.show(prefix_tree(found, self.root))
        if self.prefix is None and found:
            # From a thread: the first namespace that mentions it, its items at once.
            self.prefix = found[0]
            self.reload()
        if self.prefix is not None:
            tree.select_prefix(self.prefix)
        self.update_heading()

    @on(Tree.NodeHighlighted, "#store-tree")
    def _namespace_highlighted(self, event: Tree.NodeHighlighted[Namespace]) -> None:
        event.stop()
        prefix = event.node.data
        if prefix is None or prefix == self.prefix:
            return
        if self.mentions and event.node is self.namespace_tree.root:
            return  # "mentioning" is a heading, not a namespace: the whole Store is not wanted
        self.prefix = prefix
        self._items_of = None
        self.table.set_rows([])
        self.reload()

    @on(Tree.NodeSelected, "#store-tree")
    def _namespace_chosen(self, event: Tree.NodeSelected[Namespace]) -> None:
        # enter on a namespace with nothing below: on to its items (a branch opens/closes).
        if not event.node.allow_expand:
            self.table.focus()

    def item_deleted(self, item: StoreItem) -> None:
        if not self.table.loaded_count:
            # Its last item gone: a store that drops empty namespaces no longer lists
            # it (the in-memory one still does), so the tree shows what the server has now.
            self._load_namespaces()

    def action_refresh(self) -> None:
        self._load_namespaces()
        self.reload()

    def reload_and_select(self, item_id: str | None = None) -> None:
        self._select_after_load = item_id
        self._load_namespaces()
        self.reload()

    # -- verbs --------------------------------------------------------------------------

    def open_item(self, item: StoreItem) -> None:
        title = f"item {item.key} · in {dotted(item.ns)}"
        self.app.push_screen(RawJsonScreen(item.raw(), title=title))

    def _put_done(self, draft: ItemDraft | None) -> None:
        if draft is None:
            return
        self.notify(clean_text(f"Put {draft.key!r} in {dotted(draft.namespace)}"), markup=False)
        if self.prefix is not None and draft.namespace[: len(self.prefix)] != self.prefix:
            # Put elsewhere: follow it, so the user sees what they wrote.
            self.prefix = draft.namespace
            self.table.set_rows([])
        key = item_row_id(StoreItem(namespace=list(draft.namespace), key=draft.key))
        self.reload_and_select(key)

    def new_item(self) -> None:
        namespace = self.prefix or ()
        self.app.push_screen(ItemFormScreen(self.client, namespace=namespace), self._put_done)

    def edit_item(self, item: StoreItem) -> None:
        self.app.push_screen(ItemFormScreen(self.client, item=item), self._put_done)

    async def delete_item(self, item: StoreItem) -> None:
        await self.client.store.delete_item(item.ns, item.key)

    def action_search(self) -> None:
        where = dotted(self.prefix or ()) or "the whole Store"

        def chosen(search: StoreSearch | None) -> None:
            if search is not None:
                self.search = search
                self.unranked = False
                self.table.set_rows([])
                self.reload()

        self.app.push_screen(StoreSearchScreen(where, self.search), chosen)

    def clear_search(self) -> None:
        self.search = StoreSearch()
        self.unranked = False
        self.reload()

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()
        yield PaletteCommand(
            "Search the Store…", "A JSON filter and a query, on the server (s)", self.action_search
        )
        if self.search.active:
            yield PaletteCommand("Clear the Store search", "Every item again", self.clear_search)


def store_screen(
    app: App[Any],
    argument: str | None,
    *,
    client: AgentServerClient | None = None,
    mentions: Sequence[Mention] = (),
) -> Screen[Any]:
    """The route's factory: `:store [PREFIX]`; a thread view passes `mentions`."""
    client = client or agent_app(app).client
    if client is None:
        raise RouteUnavailable("Not connected to an agent server yet")
    prefix: Namespace = ()
    if argument and argument.strip():
        try:
            prefix = parse_namespace(argument)
        except StoreInputError as error:
            raise RouteUnavailable(f":store {argument}: the prefix {error}") from None
    return StoreScreen(client, prefix=prefix, mentions=mentions)
