"""An assistant's graph (`GET /assistants/{id}/graph`) drawn as boxes and arrows, scrollable.

The graph is asked for with `xray` (the nodes inside subgraphs) and drawn with every
subgraph as one box; the cursor (`j`/`k`, the arrows) picks a box, `enter` or `e` on a
subgraph draws its nodes in a frame in place (on a node inside: collapses it), `x`
expands every subgraph or none (`tui/widgets/graph_view.py`). `z` zooms out to the
compact drawing (each box just its name), `t` shows the layers and edges as a list.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Static

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Assistant
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.graph_view import GraphView
from agent_tui.tui.widgets.text import server_text

LEGEND = "│ edge   ╎ conditional (decided at run time)   loops go up the right side"
LIST_LEGEND = "──▶ edge   ╌╌▶ conditional (decided at run time)   ↺ loops back"


class AssistantGraphScreen(AgentScreen[None]):
    HELP_TITLE = "assistant graph"
    DEFAULT_CSS = """
    AssistantGraphScreen #graph-title { padding: 0 1; height: auto; }
    AssistantGraphScreen #graph-legend { padding: 0 1; color: $text-muted; }
    AssistantGraphScreen GraphView { padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back", id="assistant_graph.back"),
        Binding("r", "refresh", "Refresh", id="assistant_graph.refresh"),
        Binding("z", "zoom", "Zoom", id="assistant_graph.zoom"),
        Binding("t", "as_list", "List", id="assistant_graph.list"),
    ]

    def __init__(self, client: AgentServerClient, assistant: Assistant) -> None:
        super().__init__()
        self.client = client
        self.assistant = assistant
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
        self._show_legend()

    @on(GraphView.Expanded)
    def _expanded(self, event: GraphView.Expanded) -> None:
        self._show_legend()

    def _show_legend(self) -> None:
        view = self.query_one(GraphView)
        legend = LIST_LEGEND if view.as_list else LEGEND
        if view.expanded:
            legend += "   expanded: " + ", ".join(sorted(view.expanded))
        self.query_one("#graph-legend", Static).update(server_text(legend))

    @work(exclusive=True, group="assistant-graph", exit_on_error=False)
    async def _load(self) -> None:
        view = self.query_one(GraphView)
        view.loading = True
        try:
            graph = await self.client.assistants.get_graph(self.assistant.assistant_id, xray=True)
        except ApiError as error:
            self.report_error(error, doing="draw the graph")
            return
        finally:
            view.loading = False
        if view.expanded is None:  # the first load: every subgraph one box
            view.expanded = frozenset()
        view.show(graph)
        self._show_legend()
        self.loaded = True
