"""The Threads screen: a server-side search, paged in as the cursor nears the end.

Keys beyond the shared verbs (`resource_screen.py`): `s` search form (status, metadata,
sort, page size), `C` copy the thread (a new thread with the same history), `!` the
threads that need attention. `n` makes a thread (the form starts with the metadata of
the current search, so the new thread shows up in it); `enter` opens its state.

Each page asks only for the listed fields and the last message (`select`/`extract`):
with 200 messages per thread a 100-thread page took 0.17 s with whole states and
0.03 s like this (see benchmarks/README.md).

The route factories for `:threads`, `:thread <id>` and `:attention` live here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType

from agent_tui.client.models import Thread
from agent_tui.text.short_ids import short_thread_id
from agent_tui.text.time_text import utc_seconds
from agent_tui.threads.query import (
    QueryError,
    ThreadPager,
    ThreadQuery,
    format_metadata,
    graph_of,
    last_message_preview,
)
from agent_tui.tui import routes
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import FAILED, ResourceScreen
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.screens.threads.create import ThreadCreateScreen
from agent_tui.tui.screens.threads.search import ThreadSearchScreen
from agent_tui.tui.widgets.resource_table import GRAPH_WIDTH, Column, status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from agent_tui.client import AgentServerClient

PREVIEW_WIDTH = 60


def thread_columns() -> list[Column[Thread]]:
    return [
        Column("id", "ID", lambda t: short_thread_id(t.thread_id), width=9),
        Column("status", "Status", lambda t: status_text(t.status), width=11),
        Column("graph", "Graph", graph_of, max_width=GRAPH_WIDTH),
        Column("updated", "Updated (UTC)", lambda t: utc_seconds(t.updated_at), width=19),
        Column("preview", "Last message", lambda t: last_message_preview(t, PREVIEW_WIDTH)),
    ]


class ThreadsScreen(ResourceScreen[Thread]):
    RESOURCE = "thread"
    RESOURCES = "threads"
    EMPTY_HINT = "none here: n creates one, s changes the search"
    VERBS = frozenset({"new", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "search", "Search", id="threads.search"),
        # Off the footer (80 columns): `?` lists them.
        Binding("C", "copy_thread", "Copy thread", show=False, id="threads.copy"),
        Binding("exclamation_mark", "attention", "Attention", show=False, id="threads.attention"),
        Binding("D", "to_dataset", "Add to dataset", show=False, id="threads.to_dataset"),
    ]

    def __init__(self, client: AgentServerClient, query: ThreadQuery | None = None) -> None:
        super().__init__()
        self.client = client
        self.total: int | None = None  # how many threads the search matches, when known
        self._select_after_load: str | None = None
        self.set_queries([query or ThreadQuery()])

    # -- what is listed ---------------------------------------------------------------

    def set_queries(self, queries: Sequence[ThreadQuery]) -> None:
        self.queries = list(queries)
        self.pager = ThreadPager(self.queries)
        self.page_size = self.queries[0].page_size

    @property
    def search(self) -> ThreadQuery:
        return self.queries[0]

    def columns(self) -> Sequence[Column[Thread]]:
        return thread_columns()

    def item_id(self, item: Thread) -> str:
        return item.thread_id

    def describe(self, item: Thread) -> str:
        return f"thread {item.thread_id}"

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Thread]:
        if offset == 0:  # a (re)load starts the search again
            self.pager = ThreadPager(self.queries)
            self.total = await self.pager.count(self.client.threads)
        return await self.pager.next_page(self.client.threads, limit)

    def heading(self) -> Text | None:
        text = server_text(self.describe_search())
        if self.total is not None:
            text.append(f" · {self.total} match", style="bold")
        return text

    def describe_search(self) -> str:
        return self.search.describe()

    def update_heading(self) -> None:
        super().update_heading()
        if self._select_after_load and self.table.move_to(self._select_after_load):
            self._select_after_load = None

    def reload_and_select(self, thread_id: str) -> None:
        self._select_after_load = thread_id
        self.reload()

    # -- verbs ------------------------------------------------------------------------

    def open_item(self, item: Thread) -> None:
        self.app.push_screen(
            routes.build(self.app, "thread", item.thread_id, client=self.client, chat=False)
        )

    def new_item(self) -> None:
        def created(thread: Thread | None) -> None:
            if thread is not None:
                self.notify(f"Created thread {thread.thread_id}", markup=False)
                self.reload_and_select(thread.thread_id)

        metadata = format_metadata(self.search.metadata)
        self.app.push_screen(ThreadCreateScreen(self.client, metadata=metadata), created)

    async def delete_item(self, item: Thread) -> None:
        await self.client.threads.delete(item.thread_id)

    def item_deleted(self, item: Thread) -> None:
        if self.total:
            self.total -= 1  # the search matches one fewer (no need to count again)

    def action_search(self) -> None:
        def searched(query: ThreadQuery | None) -> None:
            if query is not None:
                self.set_queries([query])
                self.total = None
                self.table.set_rows([])
                self.reload()

        self.app.push_screen(ThreadSearchScreen(self.search), searched)

    def action_copy_thread(self) -> None:
        item = self._selected()
        if item is None or self.refuse_if_readonly("copy a thread"):
            return
        self._copy(item)

    def action_to_dataset(self) -> None:
        """The selected thread's last turn as an example of a dataset (kept on this
        machine: allowed in read-only mode)."""
        from agent_tui.tui.modals.to_dataset import AddToDatasetScreen

        item = self._selected()
        if item is not None:
            self.app.push_screen(AddToDatasetScreen(self.client, item.thread_id), self._added)

    def _added(self, example: object) -> None:
        if example is not None:
            self.notify("Added the turn to the dataset", markup=False)

    @work(group="threads-copy", exit_on_error=False)
    async def _copy(self, item: Thread) -> None:
        copy = await self.attempt(
            self.client.threads.copy(item.thread_id), doing=f"copy thread {item.thread_id}"
        )
        if copy is FAILED:
            return
        assert isinstance(copy, Thread)
        self.notify(f"Copied thread {item.thread_id} to {copy.thread_id}", markup=False)
        self.reload_and_select(copy.thread_id)

    async def action_attention(self) -> None:
        await self.agent_app.open_resource("attention")

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield PaletteCommand(
            "Search threads…", "Status, metadata, sort, page size", self.action_search
        )
        yield PaletteCommand(
            "New thread…", "Empty, with metadata, or from supersteps", self.action_new
        )
        yield PaletteCommand(
            "Copy thread", "A new thread with the selected one's history", self.action_copy_thread
        )
        yield PaletteCommand(
            "Add to dataset…",
            "The selected thread's last turn as an example (input, answer as reference)",
            self.action_to_dataset,
        )


# -- routes (tui/routes.py) -----------------------------------------------------


def client_of(app: App[Any]) -> AgentServerClient:
    client = agent_app(app).client
    if client is None:
        raise RouteUnavailable("not connected to a server yet")
    return client


def threads_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """`:threads` (an argument is a metadata filter: `:threads graph_id=chat`)."""
    try:
        query = ThreadQuery.from_input(metadata=argument) if argument else None
    except QueryError as error:
        raise RouteUnavailable(str(error)) from None
    return ThreadsScreen(client_of(app), query)
