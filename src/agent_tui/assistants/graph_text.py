"""A graph's nodes and edges drawn as text (`GET /assistants/{id}/graph`).

Headless (no Textual): the graph view widget colours the pieces, tests read the text.

The drawing has two parts:

- the layers: nodes grouped by their distance from `__start__` along the longest
  path that does not loop back (`__end__` always last), one line per layer, so the
  flow reads top to bottom;
- the edges, grouped by source: `──▶` a normal edge, `╌╌▶` a conditional one (the
  graph decides at run time), and `↺` marks an edge that goes back to an earlier
  layer or to the node itself (a loop, like the chat graph's tools → agent).

Every piece is a `(text, kind)` pair so a UI can style nodes, edges and loops; `kind`
is one of `KINDS`. Node names come from the server: the caller must render them as
inert text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len

from agent_tui.client.models import AssistantGraph
from agent_tui.text.sanitize import clean_text

START = "__start__"
END = "__end__"

Kind = Literal["label", "node", "edge", "conditional", "loop", "note"]
KINDS: tuple[Kind, ...] = ("label", "node", "edge", "conditional", "loop", "note")
Piece = tuple[str, Kind]
Line = list[Piece]

ARROW = "──▶"
CONDITIONAL_ARROW = "╌╌▶"
LOOP_MARK = "↺"


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    conditional: bool = False
    label: str = ""


def edges_of(graph: AssistantGraph) -> tuple[list[str], list[Edge]]:
    """Node ids and edges of a server graph; an edge's `data` string is its label."""
    nodes = [node.id for node in graph.nodes]
    edges = [
        Edge(
            edge.source,
            edge.target,
            edge.conditional,
            edge.data if isinstance(edge.data, str) else "",
        )
        for edge in graph.edges
    ]
    return nodes, edges


def _all_nodes(nodes: Iterable[str], edges: Sequence[Edge]) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(nodes)
    for edge in edges:
        seen.setdefault(edge.source)
        seen.setdefault(edge.target)
    return list(seen)


def back_edges(nodes: Sequence[str], edges: Sequence[Edge]) -> set[tuple[str, str]]:
    """Edges that close a cycle, found by depth-first search from `__start__` (then
    from any node not reached), visiting targets in edge order."""
    out: dict[str, list[str]] = {node: [] for node in nodes}
    for edge in edges:
        out.setdefault(edge.source, []).append(edge.target)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    found: set[tuple[str, str]] = set()
    roots = [START, *nodes] if START in out else list(nodes)
    for root in roots:
        if root in state:
            continue
        # Iterative DFS: graphs from servers may be deep, recursion is not worth the risk.
        stack: list[tuple[str, int]] = [(root, 0)]
        state[root] = 1
        while stack:
            node, index = stack[-1]
            targets = out.get(node, [])
            if index == len(targets):
                state[node] = 2
                stack.pop()
                continue
            stack[-1] = (node, index + 1)
            target = targets[index]
            if state.get(target) == 1:
                found.add((node, target))
            elif target not in state:
                state[target] = 1
                stack.append((target, 0))
    return found


def layers(nodes: Sequence[str], edges: Sequence[Edge]) -> list[list[str]]:
    """Nodes grouped by longest distance from a source, ignoring loops; `__end__` last."""
    names = _all_nodes(nodes, edges)
    loops = back_edges(names, edges)
    forward = [e for e in edges if (e.source, e.target) not in loops]
    incoming: dict[str, int] = {node: 0 for node in names}
    for edge in forward:
        incoming[edge.target] += 1
    depth: dict[str, int] = {node: 0 for node in names}
    ready = [node for node in names if incoming[node] == 0]
    while ready:  # Kahn's order over the acyclic rest
        node = ready.pop(0)
        for edge in forward:
            if edge.source != node:
                continue
            depth[edge.target] = max(depth[edge.target], depth[node] + 1)
            incoming[edge.target] -= 1
            if incoming[edge.target] == 0:
                ready.append(edge.target)
    if END in depth:
        others = [depth[node] for node in names if node != END]
        depth[END] = max(others, default=-1) + 1
    grouped: dict[int, list[str]] = {}
    for node in names:
        grouped.setdefault(depth[node], []).append(node)
    return [grouped[level] for level in sorted(grouped)]


def _shown(name: str) -> str:
    """A node name as drawn: cleaned and on one line, so padding can measure it."""
    return clean_text(name).replace("\n", " ").replace("\t", " ")


def _pad(text: str, width: int) -> str:
    # By terminal cells, not characters: a wide (CJK, emoji) name takes two per character.
    return text + " " * (width - cell_len(text))


def graph_lines(nodes: Sequence[str], edges: Sequence[Edge]) -> list[Line]:
    """The drawing as lines of styled pieces (see the module docstring)."""
    if not nodes and not edges:
        return [[("This graph has no nodes.", "note")]]
    levels = layers(nodes, edges)
    order = [node for level in levels for node in level]
    rank = {node: index for index, node in enumerate(order)}
    loops = back_edges(_all_nodes(nodes, edges), edges)

    lines: list[Line] = [[("Layers", "label")]]
    for index, level in enumerate(levels):
        line: Line = [(f"  {index:>2}  ", "label")]
        for position, node in enumerate(level):
            if position:
                line.append(("  ·  ", "label"))
            line.append((_shown(node), "node"))
        lines.append(line)

    lines += [[], [("Edges", "label")]]
    width = max(cell_len(_shown(node)) for node in order)
    by_source: dict[str, list[Edge]] = {}
    for edge in edges:
        by_source.setdefault(edge.source, []).append(edge)
    for source in order:
        outgoing = sorted(by_source.get(source, []), key=lambda e: rank[e.target])
        for position, edge in enumerate(outgoing):
            shown = _shown(source) if position == 0 else ""
            line = [("  ", "label"), (_pad(shown, width), "node" if shown else "label")]
            if edge.conditional:
                line.append((f" {CONDITIONAL_ARROW} ", "conditional"))
            else:
                line.append((f" {ARROW} ", "edge"))
            notes = []
            if edge.label and edge.label != edge.target:
                notes.append(_shown(edge.label))
            if edge.conditional:
                notes.append("conditional")
            marked = bool(notes) or (edge.source, edge.target) in loops
            target = _shown(edge.target)
            line.append((_pad(target, width) if marked else target, "node"))
            if notes:
                line.append((f"  ({', '.join(notes)})", "note"))
            if (edge.source, edge.target) in loops:
                line.append((f"  {LOOP_MARK} loop", "loop"))
            lines.append(line)
    lonely = [node for node in order if node not in by_source and node != END]
    if lonely:
        shown_lonely = ", ".join(_shown(node) for node in lonely)
        lines += [[], [("No outgoing edges: ", "label"), (shown_lonely, "node")]]
    return lines


def graph_text(nodes: Sequence[str], edges: Sequence[Edge]) -> str:
    """The drawing as plain text, lines without trailing spaces."""
    return "\n".join(
        "".join(text for text, _ in line).rstrip() for line in graph_lines(nodes, edges)
    )
