"""The first half of a Sugiyama-style layout: which layer each node is in, and their
order in each layer.

1. Cycle breaking: a depth-first search from `__start__` (then from any node not
   reached) finds the back edges (loops); they are left out of the layering and drawn
   up the side. A self-loop is a back edge.
2. Layering: the longest path from a source over the other edges; `__end__` last.
3. Dummy nodes: an edge over several layers gets one slot in every layer between, so
   that every edge joins neighbouring layers.
4. Crossing reduction: barycenter sweeps, down and up, a few passes; the order with the
   fewest crossings is kept.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tui.graph_drawing.model import END, START, Edge, Graph, cluster_of

SWEEPS = 4

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
    ranked = Ranked(layers, layer_of, sorted(back))
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
    _reduce_crossings(ranked)
    return ranked


def _links(ranked: Ranked) -> tuple[dict[Slot, list[Slot]], dict[Slot, list[Slot]]]:
    """Each slot's neighbours in the layer above and in the layer below."""
    up: dict[Slot, list[Slot]] = {}
    down: dict[Slot, list[Slot]] = {}
    for chain in ranked.chains.values():
        for upper, lower in itertools.pairwise(chain):
            down.setdefault(upper, []).append(lower)
            up.setdefault(lower, []).append(upper)
    return up, down


def crossings(layers: Sequence[Sequence[Slot]], down: dict[Slot, list[Slot]]) -> int:
    """Edge crossings between neighbouring layers (inversions, counted by bisection)."""
    total = 0
    for upper, lower in itertools.pairwise(layers):
        where = {slot: index for index, slot in enumerate(lower)}
        pairs = sorted(
            (position, where[target])
            for position, slot in enumerate(upper)
            for target in down.get(slot, ())
        )
        seen: list[int] = []
        for _, target in pairs:
            total += len(seen) - bisect_right(seen, target)
            insort(seen, target)
    return total


def _sweep(layers: list[list[Slot]], neighbours: dict[Slot, list[Slot]], order: range) -> None:
    for level in order:
        fixed = layers[level - 1] if order.step > 0 else layers[level + 1]
        where = {slot: index for index, slot in enumerate(fixed)}
        keyed = []
        for position, slot in enumerate(layers[level]):
            linked = [where[other] for other in neighbours.get(slot, ()) if other in where]
            keyed.append((sum(linked) / len(linked) if linked else float(position), position))
        layers[level] = [layers[level][position] for _, position in sorted(keyed)]


def _reduce_crossings(ranked: Ranked) -> None:
    up, down = _links(ranked)
    layers = ranked.layers
    best = [list(layer) for layer in layers]
    fewest = crossings(layers, down)
    for _ in range(SWEEPS):
        if fewest == 0:
            break
        _sweep(layers, up, range(1, len(layers)))
        _sweep(layers, down, range(len(layers) - 2, -1, -1))
        now = crossings(layers, down)
        if now < fewest:
            fewest, best = now, [list(layer) for layer in layers]
    ranked.layers = [_clustered(layer, ranked) for layer in best]


def slot_cluster(slot: Slot, ranked: Ranked) -> str:
    """A node's subgraph; a dummy's when its edge runs inside one subgraph, else `""`."""
    if isinstance(slot, str):
        return cluster_of(slot)
    chain = ranked.chains[slot[0]]
    inside = cluster_of(str(chain[0]))
    return inside if inside == cluster_of(str(chain[-1])) else ""


def _clustered(layer: list[Slot], ranked: Ranked) -> list[Slot]:
    """The slots of one subgraph side by side, where the first of them is (a frame can
    then go round them)."""
    first: dict[str, int] = {}
    keys = []
    for position, slot in enumerate(layer):
        cluster = slot_cluster(slot, ranked)
        key = first.setdefault(cluster, position) if cluster else position
        keys.append((key, position))
    return [layer[position] for _, position in sorted(keys)]
