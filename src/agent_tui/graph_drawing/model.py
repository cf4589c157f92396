"""The graph a drawing is made of: node ids and edges, from the server's answer.

Headless. `graph_from_server` takes an `AssistantGraph` (`GET /assistants/{id}/graph`);
`graph_from_payload` takes whatever JSON a server sent and returns a `Graph`, or a text
that says what it holds when that cannot be drawn (an unknown node shape, no edge list):
a drawing never crashes on a strange answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent_tui.client.models import AssistantGraph
from agent_tui.text.sanitize import clean_text

START = "__start__"
END = "__end__"


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    conditional: bool = False


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes in the server's order (every edge's ends included) and distinct edges."""

    nodes: tuple[str, ...]
    edges: tuple[Edge, ...]

    @classmethod
    def of(cls, nodes: Iterable[str], edges: Iterable[Edge]) -> Graph:
        edges = tuple(dict.fromkeys(edges))
        seen: dict[str, None] = dict.fromkeys(nodes)
        for edge in edges:
            seen.setdefault(edge.source)
            seen.setdefault(edge.target)
        return cls(tuple(seen), edges)


def is_small(node: str) -> bool:
    """`__start__` and `__end__` (a subgraph's too: `chat:__start__`) are drawn small."""
    last = node.rsplit(":", 1)[-1]
    return last in (START, END)


def shown_name(node: str, *, compact: bool = False) -> str:
    """A node's name as drawn: cleaned, on one line; `start`/`end` for the small ones; in
    the compact form only the last part of a subgraph's path (`chat:agent` → `agent`,
    `chat:__end__` → `chat:end`, compact `end`)."""
    path, _, last = node.rpartition(":")
    if last in (START, END):
        last = last.strip("_")
        name = last if compact or not path else f"{path}:{last}"
    else:
        name = last if compact else node
    return " ".join(clean_text(name).split()) or "?"


def cluster_of(node: str) -> str:
    """The subgraph a node is in (`chat:agent` → `chat`), `""` for the graph's own."""
    return node.rpartition(":")[0]


def subgraphs(graph: Graph) -> list[str]:
    """The subgraphs an xray graph shows (`chat`, `outer:inner`), outermost first."""
    found: dict[str, None] = {}
    for node in graph.nodes:
        parts = node.split(":")[:-1]
        for depth in range(1, len(parts) + 1):
            found.setdefault(":".join(parts[:depth]))
    return sorted(found, key=lambda name: (name.count(":"), list(found).index(name)))


def collapse(graph: Graph, expanded: Iterable[str]) -> Graph:
    """`graph` (xray) with each subgraph not in `expanded` drawn as one node again, named
    after it; edges inside it go, edges in and out of it join that node."""
    opened = set(expanded)

    def shown(node: str) -> str:
        parts = node.split(":")
        for depth in range(1, len(parts)):
            name = ":".join(parts[:depth])
            if name not in opened:
                return name
        return node

    edges = [
        Edge(shown(edge.source), shown(edge.target), edge.conditional)
        for edge in graph.edges
        if shown(edge.source) != shown(edge.target)
    ]
    return Graph.of([shown(node) for node in graph.nodes], edges)


def graph_from_server(graph: AssistantGraph) -> Graph:
    nodes = [node.id for node in graph.nodes]
    edges = [Edge(e.source, e.target, bool(e.conditional)) for e in graph.edges]
    return Graph.of(nodes, edges)


def graph_from_payload(payload: Any) -> Graph | str:
    """A `Graph` from the server's JSON, or a text saying what it holds when that is not
    a graph that can be drawn (nodes without an id, no edge list, edges without ends)."""
    if not isinstance(payload, dict):
        return "The server's graph is not an object: it cannot be drawn."
    raw_nodes = payload.get("nodes")
    raw_edges = payload.get("edges")
    names = _node_names(raw_nodes)
    if names is None:
        return "The server's graph has nodes of an unknown shape: it cannot be drawn."
    listed = "\n".join(f"  {clean_text(name)}" for name in names)
    if not isinstance(raw_edges, list):
        return f"The server's graph has no edge list. Its nodes:\n{listed}".rstrip()
    edges: list[Edge] = []
    for raw in raw_edges:
        if not (
            isinstance(raw, dict)
            and isinstance(raw.get("source"), str)
            and isinstance(raw.get("target"), str)
        ):
            return f"The server's graph has edges of an unknown shape. Its nodes:\n{listed}"
        edges.append(Edge(raw["source"], raw["target"], raw.get("conditional") is True))
    return Graph.of(names, edges)


def _node_names(raw_nodes: Any) -> list[str] | None:
    if not isinstance(raw_nodes, list):
        return None
    names: list[str] = []
    for raw in raw_nodes:
        if isinstance(raw, dict) and isinstance(raw.get("id"), str | int):
            names.append(str(raw["id"]))
        else:
            return None
    return names


Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Box:
    node: str
    name: str  # as drawn: cleaned, maybe shortened
    layer: int
    order: int
    x: int
    y: int
    width: int
    height: int
    small: bool

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass(frozen=True, slots=True)
class Route:
    edge: Edge
    back: bool
    points: tuple[Point, ...]  # corners, from the cell below the source to the arrowhead


@dataclass(frozen=True, slots=True)
class Frame:
    """A subgraph's nodes (xray) framed: the frame's cells, its border included."""

    name: str  # as drawn
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Layout:
    boxes: dict[str, Box]
    routes: tuple[Route, ...]
    width: int
    height: int
    compact: bool
    frames: tuple[Frame, ...] = ()
