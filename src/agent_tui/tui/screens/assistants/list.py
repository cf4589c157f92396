"""The Assistants screen: every assistant of the server, or of one graph.

`:assistants` lists all; `:assistants chat` (or `f` to cycle through the graphs) shows
one graph's. Columns: name, graph, active version, updated (how long ago, and when, in
UTC), the id's first 8 characters. The verbs are the resource screen's: `enter` opens
the detail (context, metadata, versions and their diffs), `n` creates from a form built
from the graph's context schema, `e` updates (a new version; dropped keys are listed
first), `ctrl+d` deletes, and `v` draws the graph (`g` is the table's first row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.screen import Screen

from agent_tui.assistants.fetch import fetch_all_assistants
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_random_id
from agent_tui.text.time_text import Clock, now_utc, updated_text
from agent_tui.tui import routes
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import FAILED, ResourceScreen
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.graph import AssistantGraphScreen
from agent_tui.tui.widgets.resource_table import GRAPH_WIDTH, NAME_WIDTH, Column
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App


def graph_sources(assistants: Sequence[Assistant]) -> dict[str, str]:
    """Each graph id → an assistant of it to read its schema or drawing from (the
    graph's own default assistant when it has one)."""
    sources: dict[str, str] = {}
    for assistant in assistants:
        if assistant.graph_id not in sources or assistant.is_default:
            sources[assistant.graph_id] = assistant.assistant_id
    return dict(sorted(sources.items()))


class AssistantsScreen(ResourceScreen[Assistant]):
    CSS_PATH = "list.tcss"
    RESOURCE = "assistant"
    RESOURCES = "assistants"
    VERBS = frozenset({"new", "edit", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "graph", "Graph", id="assistants.graph"),
        Binding("f", "next_graph", "Graph filter", show=False, id="assistants.next_graph"),
        # `c` chats here, as on home (the footer is full at 80 columns: `?` lists it);
        # the id, copied with `c` on the other lists, is copied with `C`.
        Binding("c", "chat", "Chat", show=False, id="assistants.chat"),
        Binding("C", "copy_id", "Copy id", show=False, id="assistants.copy_id"),
    ]

    def __init__(
        self,
        client: AgentServerClient,
        *,
        graph_id: str | None = None,
        clock: Clock = now_utc,
    ) -> None:
        super().__init__()
        self.client = client
        self.graph_filter = graph_id or None
        self.clock = clock
        self.graphs: dict[str, str] = {}  # graph id → an assistant id of it

    # -- what the table shows ---------------------------------------------------------

    def columns(self) -> Sequence[Column[Assistant]]:
        return [
            Column(
                "name",
                "Name",
                lambda a: server_text(a.name or "—", style="bold"),
                max_width=NAME_WIDTH,
            ),
            Column("graph", "Graph", lambda a: server_text(a.graph_id), max_width=GRAPH_WIDTH),
            Column("version", "Version", lambda a: Text(str(a.version or "—"), justify="right")),
            Column("updated", "Updated (UTC)", lambda a: updated_text(a.updated_at, self.clock())),
            Column("id", "Id", lambda a: server_text(short_random_id(a.assistant_id), style="dim")),
        ]

    def item_id(self, item: Assistant) -> str:
        return item.assistant_id

    def describe(self, item: Assistant) -> str:
        default = " (the graph's default assistant)" if item.is_default else ""
        return f"assistant {item.name or '?'} ({short_random_id(item.assistant_id)}){default}"

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Assistant]:
        return await self.client.assistants.search(
            graph_id=self.graph_filter,
            limit=limit,
            offset=offset,
            sort_by="name",
            sort_order="asc",
        )

    def heading(self) -> Text | None:
        text = Text("graph: ", style="dim")
        text.append_text(server_text(self.graph_filter or "all", style="bold"))
        text.append("  (f: next graph)", style="dim")
        return text

    @property
    def breadcrumb_title(self) -> str:
        return f"assistants · {self.graph_filter}" if self.graph_filter else "assistants"

    def on_mount(self) -> None:
        super().on_mount()
        self._load_graphs()

    @work(exclusive=True, group="assistants-graphs", exit_on_error=False)
    async def _load_graphs(self) -> None:
        result = await self.attempt(fetch_all_assistants(self.client), doing="list the graphs")
        if result is not FAILED:
            self.graphs = graph_sources(result[0])

    # -- verbs ------------------------------------------------------------------------

    def action_next_graph(self) -> None:
        choices: list[str | None] = [None, *sorted(self.graphs)]
        if self.graph_filter not in choices:
            choices.append(self.graph_filter)
        index = choices.index(self.graph_filter)
        self.show_graph(choices[(index + 1) % len(choices)])

    def show_graph(self, graph_id: str | None) -> None:
        """List only `graph_id`'s assistants (None: every graph's)."""
        self.graph_filter = graph_id
        self.table.set_rows([])
        self.reload()

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()
        yield PaletteCommand(
            "Draw the assistant's graph", "Nodes and edges of the selected one", self.action_graph
        )
        yield PaletteCommand(
            "Assistants of every graph", "Clear the graph filter", partial(self.show_graph, None)
        )
        for graph_id in self.graphs:
            yield PaletteCommand(
                f"Assistants of graph {clean_text(graph_id)}",
                "Filter by graph",
                partial(self.show_graph, graph_id),
            )

    def open_item(self, item: Assistant) -> None:
        self.app.push_screen(
            AssistantDetailScreen(self.client, item, graphs=self.graphs, clock=self.clock),
            self._after_detail,
        )

    def _after_detail(self, changed: bool | None) -> None:
        if changed:
            self.reload()

    def new_item(self) -> None:
        if not self.graphs:
            self.notify("The graphs are still loading; try again in a moment.", markup=False)
            self._load_graphs()
            return
        form = AssistantFormScreen(self.client, graphs=self.graphs, graph_id=self.graph_filter)
        self.app.push_screen(form, self._saved)

    def edit_item(self, item: Assistant) -> None:
        self._open_edit_form(item)

    @work(exclusive=True, group="assistants-edit", exit_on_error=False)
    async def _open_edit_form(self, item: Assistant) -> None:
        # The form starts from the active version's context: on the in-memory runtime
        # the assistant record may hold a newer one (docs/server-quirks.md).
        active = await self.attempt(
            self.client.assistants.active_version(item.assistant_id),
            doing=f"read {self.describe(item)}",
        )
        if active is FAILED:
            return
        form = AssistantFormScreen(self.client, assistant=active, context=active.context)
        self.app.push_screen(form, self._saved)

    def _saved(self, assistant: Assistant | None) -> None:
        if assistant is None:
            return
        # A new version carries the right context: no run-level override needed.
        self.agent_app.context_overrides.forget(assistant.assistant_id)
        self.notify(
            f"Saved {assistant.name or assistant.assistant_id} (version {assistant.version})",
            markup=False,
        )
        self.table.update_item(assistant)
        self.table.move_to(assistant.assistant_id)
        self.update_heading()
        self.reload()

    async def delete_item(self, item: Assistant) -> None:
        await self.client.assistants.delete(item.assistant_id)
        self.agent_app.context_overrides.forget(item.assistant_id)

    def action_graph(self) -> None:
        item = self._selected()
        if item is not None:
            self.app.push_screen(AssistantGraphScreen(self.client, item))

    def action_chat(self) -> None:
        """`c`: a new thread with the highlighted assistant, open on its chat."""
        item = self._selected()
        if item is None:
            self.notify("No assistant to chat with here", severity="warning", markup=False)
            return
        if self.refuse_if_readonly("create a thread to chat in"):
            return
        self._chat(ChatAssistant.of(item))

    @work(exclusive=True, group="assistants-chat", exit_on_error=False)
    async def _chat(self, assistant: ChatAssistant) -> None:
        thread = await self.attempt(
            self.client.threads.create(metadata=assistant.thread_metadata()),
            doing="create a thread",
        )
        if thread is FAILED:
            return
        await self.app.push_screen(
            routes.build(
                self.app, "thread", thread.thread_id, client=self.client, assistant=assistant
            )
        )


def assistants_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The registry's factory: `:assistants [graph]`."""
    client = agent_app(app).client
    if client is None:
        raise RouteUnavailable("not connected to an agent server yet")
    return AssistantsScreen(client, graph_id=(argument or "").strip() or None)
