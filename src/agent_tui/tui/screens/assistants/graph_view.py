"""A graph's nodes and edges drawn as text (`graph_text`), scrollable, inert, coloured."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from agent_tui.assistants.graph_text import Edge, Kind, graph_lines, graph_text
from agent_tui.tui.widgets.text import server_text

STYLES: dict[Kind, str] = {
    "label": "dim",
    "node": "bold",
    "edge": "",
    "conditional": "yellow",
    "loop": "magenta",
    "note": "italic dim",
}


def graph_renderable(nodes: Sequence[str], edges: Sequence[Edge]) -> Text:
    """The drawing as one `Text`; node names (server strings) are cleaned, never markup."""
    text = Text(no_wrap=True, overflow="ignore")
    for index, line in enumerate(graph_lines(nodes, edges)):
        if index:
            text.append("\n")
        for piece, kind in line:
            text.append_text(server_text(piece, style=STYLES[kind]))
    return text


class GraphView(ScrollableContainer, can_focus=True):
    """Scrolls both ways: wide graphs are not wrapped (that would break the columns)."""

    DEFAULT_CSS = """
    GraphView { height: 1fr; }
    GraphView > Static { width: auto; height: auto; }
    """

    def __init__(
        self,
        nodes: Sequence[str] = (),
        edges: Sequence[Edge] = (),
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.nodes = list(nodes)
        self.edges = list(edges)

    @property
    def plain(self) -> str:
        return graph_text(self.nodes, self.edges)

    def compose(self) -> ComposeResult:
        yield Static(graph_renderable(self.nodes, self.edges), id="graph-drawing")

    def show(self, nodes: Sequence[str], edges: Sequence[Edge]) -> None:
        self.nodes, self.edges = list(nodes), list(edges)
        self.query_one("#graph-drawing", Static).update(graph_renderable(self.nodes, self.edges))
