"""The first half of a Sugiyama-style layout: which layer each node is in, and their
order in each layer.

1. Cycle breaking: a depth-first search from `__start__` (then from any node not
   reached) finds the back edges (loops); they are left out of the layering and drawn
   up the side. A self-loop is a back edge.
2. Layering: the longest path from a source over the other edges; `__end__` last.
3. Dummy nodes: an edge over several layers gets one slot in every layer between, so
   that every edge joins neighbouring layers.
4. Crossing reduction (`ordering`): median sweeps down and up with a transpose pass,
   loops counted as edges out to the side; the order with the fewest crossings is kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tui.graph_drawing.model import END, START, Edge, Graph, cluster_of
from agent_tui.graph_drawing.ordering import Ordering

# A slot in a layer: a node's id, or a dummy `(edge index, layer)`.
Slot = str | tuple[int, int]


@dataclass(slots=True)
class Ranked:
    """The layers (slots in order), each node's layer, the back edges and every edge's
    chain of slots from its source to its target (forward edges only)."""

    layers: list[list[Slot]]
    layer_of: dict[str, int]
    back: list[int]  # indices into graph.edges
    chains: dict[int, list[Slot]] = field(default_factory=dict)
    edges: tuple[Edge, ...] = ()


def back_edges(graph: Graph) -> set[int]:
    """Indices of the edges that close a cycle (iterative DFS, targets in edge order)."""
    out: dict[str, list[tuple[str, int]]] = {node: [] for node in graph.nodes}
    for index, edge in enumerate(graph.edges):
        out[edge.source].append((edge.target, index))
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    found: set[int] = set()
    roots = [START, *graph.nodes] if START in out else list(graph.nodes)
    for root in roots:
        if root in state:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        state[root] = 1
        while stack:
            node, position = stack[-1]
            targets = out[node]
            if position == len(targets):
                state[node] = 2
                stack.pop()
                continue
            stack[-1] = (node, position + 1)
            target, index = targets[position]
            if state.get(target) == 1:
                found.add(index)
            elif target not in state:
                state[target] = 1
                stack.append((target, 0))
    return found


def longest_path_layers(graph: Graph, forward: Sequence[Edge]) -> dict[str, int]:
    incoming = dict.fromkeys(graph.nodes, 0)
    out: dict[str, list[str]] = {node: [] for node in graph.nodes}
    for edge in forward:
        incoming[edge.target] += 1
        out[edge.source].append(edge.target)
    layer = dict.fromkeys(graph.nodes, 0)
    ready = [node for node in graph.nodes if incoming[node] == 0]
    while ready:  # Kahn's order over the acyclic rest
        node = ready.pop()
        for target in out[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            incoming[target] -= 1
            if incoming[target] == 0:
                ready.append(target)
    if END in layer:
        others = [layer[node] for node in graph.nodes if node != END]
        layer[END] = max(others, default=-1) + 1
    return layer


def rank(graph: Graph) -> Ranked:
    back = back_edges(graph)
    forward = [edge for index, edge in enumerate(graph.edges) if index not in back]
    layer_of = longest_path_layers(graph, forward)
    # An edge that still goes up or sideways (out of `__end__`, which is always last) is
    # drawn as a loop too.
    back |= {
        index
        for index, edge in enumerate(graph.edges)
        if layer_of[edge.target] <= layer_of[edge.source]
    }
    count = max(layer_of.values(), default=-1) + 1
    layers: list[list[Slot]] = [[] for _ in range(count)]
    for node in graph.nodes:
        layers[layer_of[node]].append(node)
    ranked = Ranked(layers, layer_of, sorted(back), edges=graph.edges)
    for index, edge in enumerate(graph.edges):
        if index in back:
            continue
        top, bottom = layer_of[edge.source], layer_of[edge.target]
        chain: list[Slot] = [edge.source]
        for level in range(top + 1, bottom):
            dummy = (index, level)
            layers[level].append(dummy)
            chain.append(dummy)
        chain.append(edge.target)
        ranked.chains[index] = chain
    ranked.layers = _ordering(ranked).order()
    return ranked


def _ordering(ranked: Ranked) -> Ordering[Slot]:
    links = [link for chain in ranked.chains.values() for link in itertools.pairwise(chain)]
    layer_of = ranked.layer_of
    loops = []
    for index in ranked.back:
        edge = ranked.edges[index]
        loops.append((layer_of[edge.source], edge.source, layer_of[edge.target], edge.target))
    return Ordering(ranked.layers, links, loops, lambda slot: slot_cluster(slot, ranked))


def crossings(ranked: Ranked) -> int:
    """The crossings of `ranked`'s order as drawn: edges between neighbouring layers
    (long ones through their dummy slots) and loops out to the side."""
    return _ordering(ranked).crossings()


def slot_cluster(slot: Slot, ranked: Ranked) -> str:
    """A node's subgraph; a dummy's when its edge runs inside one subgraph, else `""`."""
    if isinstance(slot, str):
        return cluster_of(slot)
    chain = ranked.chains[slot[0]]
    inside = cluster_of(str(chain[0]))
    return inside if inside == cluster_of(str(chain[-1])) else ""
