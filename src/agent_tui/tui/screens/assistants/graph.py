"""An assistant's graph (`GET /assistants/{id}/graph`) drawn as boxes and arrows, scrollable.

`z` zooms out to the compact drawing (each box just its name), `x` draws every
subgraph's nodes too (xray) or none, `e` one subgraph at a time (the next one at each
press, then none again), `t` shows the layers and edges as a list instead.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Static

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Assistant, AssistantGraph
from agent_tui.graph_drawing import graph_from_server, subgraphs
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.screens.assistants.graph_view import GraphView
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.text import server_text

LEGEND = "│ edge   ╎ conditional (decided at run time)   loops go up the right side"
LIST_LEGEND = "──▶ edge   ╌╌▶ conditional (decided at run time)   ↺ loops back"


class AssistantGraphScreen(AgentScreen[None]):
    DEFAULT_CSS = """
    AssistantGraphScreen #graph-title { padding: 0 1; height: auto; }
    AssistantGraphScreen #graph-legend { padding: 0 1; color: $text-muted; }
    AssistantGraphScreen GraphView { padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back", id="assistant_graph.back"),
        Binding("r", "refresh", "Refresh", id="assistant_graph.refresh"),
        Binding("x", "xray", "Subgraphs", id="assistant_graph.xray"),
        Binding("e", "expand", "Expand next", id="assistant_graph.expand"),
        Binding("z", "zoom", "Zoom", id="assistant_graph.zoom"),
        Binding("t", "as_list", "List", id="assistant_graph.list"),
    ]

    def __init__(self, client: AgentServerClient, assistant: Assistant) -> None:
        super().__init__()
        self.client = client
        self.assistant = assistant
        self.xray = False
        self.expand_step = 0  # `e` presses since `x`: which subgraph is expanded
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        title = Text("Graph ", style="bold")
        title.append_text(server_text(self.assistant.graph_id, style="bold"))
        title.append("  of assistant ")
        title.append_text(server_text(self.assistant.name or self.assistant.assistant_id))
        yield Static(title, id="graph-title")
        yield Static(LEGEND, id="graph-legend")
        yield GraphView(id="graph-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(GraphView).focus()
        self._load()

    def action_back(self) -> None:
        self.dismiss()

    def action_refresh(self) -> None:
        self._load()

    def action_zoom(self) -> None:
        view = self.query_one(GraphView)
        view.show(compact=not view.compact)

    def action_as_list(self) -> None:
        view = self.query_one(GraphView)
        view.show(as_list=not view.as_list)
        self.query_one("#graph-legend", Static).update(LIST_LEGEND if view.as_list else LEGEND)

    def action_xray(self) -> None:
        self.xray = not self.xray
        self.expand_step = 0
        self._load()

    def action_expand(self) -> None:
        self.xray = True
        self.expand_step += 1
        self._load()

    def _expanded(self, graph: AssistantGraph) -> frozenset[str] | None:
        """The subgraph `e` has reached (with the ones around it), none after the last."""
        if not self.expand_step:
            return None
        names = subgraphs(graph_from_server(graph))
        position = (self.expand_step - 1) % (len(names) + 1)
        if position == len(names):
            return frozenset()
        parts = names[position].split(":")
        return frozenset(":".join(parts[:depth]) for depth in range(1, len(parts) + 1))

    @work(exclusive=True, group="assistant-graph", exit_on_error=False)
    async def _load(self) -> None:
        view = self.query_one(GraphView)
        view.loading = True
        try:
            graph = await self.client.assistants.get_graph(
                self.assistant.assistant_id, xray=self.xray
            )
        except ApiError as error:
            self.report_error(error, doing="draw the graph")
            return
        finally:
            view.loading = False
        view.expanded = self._expanded(graph)
        view.show(graph)
        legend = LIST_LEGEND if view.as_list else LEGEND
        if view.expanded:
            legend += "   expanded: " + ", ".join(sorted(view.expanded))
        self.query_one("#graph-legend", Static).update(server_text(legend))
        self.loaded = True
