"""A graph drawn as boxes and arrows (`graph_drawing`) or as text (`graph_text`: its
layers and edges), scrollable both ways, inert, coloured.

The drawing has a compact form (`compact`: each box just its name, narrower) for wide
graphs; the text form lists what the drawing shows, for a screen reader or a copy.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from agent_tui.assistants import graph_text as listing
from agent_tui.assistants.graph_text import Kind, graph_lines, graph_text
from agent_tui.client.models import AssistantGraph
from agent_tui.graph_drawing import Graph, collapse, draw, graph_from_server
from agent_tui.tui.widgets.text import server_text

STYLES: dict[Kind, str] = {
    "label": "dim",
    "node": "bold",
    "edge": "",
    "conditional": "yellow",
    "loop": "magenta",
    "note": "italic dim",
}


def list_of(graph: Graph) -> tuple[list[str], list[listing.Edge]]:
    """The nodes and edges as the list form (`graph_text`) takes them."""
    edges = [listing.Edge(e.source, e.target, e.conditional) for e in graph.edges]
    return list(graph.nodes), edges


def list_renderable(graph: Graph) -> Text:
    """The layers and edges as one `Text`; node names (server strings) are cleaned, never
    markup."""
    text = Text(no_wrap=True, overflow="ignore")
    for index, line in enumerate(graph_lines(*list_of(graph))):
        if index:
            text.append("\n")
        for piece, kind in line:
            text.append_text(server_text(piece, style=STYLES[kind]))
    return text


def drawing_renderable(drawing: str) -> Text:
    """The drawing as one `Text` (its names were cleaned when it was drawn; a `Text` is
    never read as markup): dashed lines yellow, arrowheads bold."""
    text = Text(drawing, no_wrap=True, overflow="ignore")
    text.highlight_regex("[╎╌]+", "yellow")
    text.highlight_regex("▼", "bold")
    return text


class GraphView(ScrollableContainer, can_focus=True):
    """Scrolls both ways: wide graphs are not wrapped (that would break the drawing)."""

    DEFAULT_CSS = """
    GraphView { height: 1fr; }
    GraphView > Static { width: auto; height: auto; }
    """

    def __init__(self, graph: AssistantGraph | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.graph = graph or AssistantGraph()
        self.compact = False
        self.as_list = False
        # The subgraphs drawn with their nodes (None: as the server sent the graph).
        self.expanded: frozenset[str] | None = None

    @property
    def shown_graph(self) -> Graph:
        graph = graph_from_server(self.graph)
        return graph if self.expanded is None else collapse(graph, self.expanded)

    @property
    def plain(self) -> str:
        """What is shown, as plain text."""
        if self.as_list:
            return graph_text(*list_of(self.shown_graph))
        return draw(self.shown_graph, compact=self.compact)

    def compose(self) -> ComposeResult:
        yield Static(self._renderable(), id="graph-drawing")

    def _renderable(self) -> Text:
        if self.as_list:
            return list_renderable(self.shown_graph)
        return drawing_renderable(self.plain)

    def show(
        self,
        graph: AssistantGraph | None = None,
        *,
        compact: bool | None = None,
        as_list: bool | None = None,
    ) -> None:
        """Show `graph` (default: the one shown), in the form asked for (default: the same)."""
        if graph is not None:
            self.graph = graph
        if compact is not None:
            self.compact = compact
        if as_list is not None:
            self.as_list = as_list
        self.query_one("#graph-drawing", Static).update(self._renderable())
