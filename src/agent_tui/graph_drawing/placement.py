"""The second half of the layout: where every box goes and how every edge runs.

- Sizes: a box fits its name (and one port per edge on each side); `__start__` and
  `__end__` are one row high; the compact form drops the padding and the subgraph path.
- x: each layer's slots in their order, moved towards the middle of their neighbours
  (sweeps down and up) with never less than a gap between two of them: for each layer
  the closest positions that keep the order and the gaps (isotonic regression, pooling
  adjacent violators), rounded.
- Ports: each edge leaves its source at its own column of the box's bottom and enters
  its target at its own column of the top, in the order of the boxes they go to.
- Routing: between two layers each edge that changes column gets a track (a row) of the
  gap, never shared with an edge it would touch; an edge goes down from its port to its
  track, across, and down to its next slot. A back edge (a loop) goes down to a track
  below its source, right to a lane of its own beside the drawing, up, and left along a
  track above its target into the target's top. Edges only run in the gaps between boxes.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from rich.cells import cell_len

from agent_tui.graph_drawing.layers import Ranked, Slot, rank, slot_cluster
from agent_tui.graph_drawing.model import Graph, is_small, shown_name

SWEEPS = 4
MAX_NAME = 30
MAX_COMPACT_NAME = 16


def shorten(text: str, cells: int) -> str:
    if cell_len(text) <= cells:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > cells - 1:
            break
        out += char
    return out + "…"


class Placer:
    """Sizes, x positions and ports of one graph's slots (`routing` does the rest)."""

    def __init__(self, graph: Graph, compact: bool) -> None:
        self.graph = graph
        self.compact = compact
        self.ranked: Ranked = rank(graph)
        self.sep = 1 if compact else 2
        self.cluster = {
            slot: slot_cluster(slot, self.ranked) for layer in self.ranked.layers for slot in layer
        }
        # Room for a frame round a subgraph's slots: its border and a blank on each side.
        self.margin = 2 if any(self.cluster.values()) else 0
        self.names: dict[str, str] = {}
        self.width: dict[Slot, int] = {}
        self.height: dict[Slot, int] = {}
        self.x: dict[Slot, int] = {}
        self.out_port: dict[int, int] = {}
        self.in_port: dict[int, int] = {}
        self.loops: list[int] = []  # the back edges, from the innermost lane out

    def place(self) -> Placer:
        self._sizes()
        self._assign_x()
        self._order_loops()
        self._ports()
        self._straighten()
        return self

    # --- sizes -----------------------------------------------------------------------
    def _sizes(self) -> None:
        ports_out: dict[str, int] = {}
        ports_in: dict[str, int] = {}
        for edge in self.graph.edges:
            ports_out[edge.source] = ports_out.get(edge.source, 0) + 1
            ports_in[edge.target] = ports_in.get(edge.target, 0) + 1
        limit = MAX_COMPACT_NAME if self.compact else MAX_NAME
        for node in self.graph.nodes:
            name = shorten(shown_name(node, compact=self.compact), limit)
            self.names[node] = name
            ports = max(ports_out.get(node, 0), ports_in.get(node, 0), 1)
            if is_small(node):
                self.width[node] = max(cell_len(name) + 2, 2 * ports - 1)
                self.height[node] = 1
            else:
                padding = 2 if self.compact else 4
                self.width[node] = max(cell_len(name) + padding, 2 * ports + 1)
                self.height[node] = 3
        for layer in self.ranked.layers:
            for slot in layer:
                if not isinstance(slot, str):
                    self.width[slot] = 1
                    self.height[slot] = 0

    # --- x ---------------------------------------------------------------------------
    def _center(self, slot: Slot) -> float:
        return self.x[slot] + (self.width[slot] - 1) / 2

    def _assign_x(self) -> None:
        layers = self.ranked.layers
        for layer in layers:
            left = 0
            for slot, gap in zip(layer, self._gaps(layer), strict=True):
                self.x[slot] = left
                left += self.width[slot] + gap
        up: dict[Slot, list[Slot]] = {}
        down: dict[Slot, list[Slot]] = {}
        for chain in self.ranked.chains.values():
            for upper, lower in itertools.pairwise(chain):
                down.setdefault(upper, []).append(lower)
                up.setdefault(lower, []).append(upper)
        for _ in range(SWEEPS):
            for layer in layers[1:]:
                self._pull(layer, up)
            for layer in reversed(layers[:-1]):
                self._pull(layer, down)
        for layer in layers[1:]:
            self._pull(layer, up)
        least = min(self.x.values(), default=0) - self.margin
        for slot in self.x:
            self.x[slot] -= least

    def _gaps(self, layer: Sequence[Slot]) -> list[int]:
        """The blank cells each slot needs before the next: more at a subgraph's edge."""
        gaps = [
            self.sep + (2 * self.margin if self.cluster[one] != self.cluster[two] else 0)
            for one, two in itertools.pairwise(layer)
        ]
        return [*gaps, self.sep]

    def _pull(self, layer: Sequence[Slot], neighbours: dict[Slot, list[Slot]]) -> None:
        """Move `layer` towards its neighbours' centres, keeping its order and gaps."""
        widths = [self.width[slot] for slot in layer]
        desired = []
        for slot in layer:
            linked = neighbours.get(slot)
            centre = (
                sum(self._center(other) for other in linked) / len(linked)
                if linked
                else self._center(slot)
            )
            desired.append(centre - (self.width[slot] - 1) / 2)
        for slot, x in zip(
            layer, _closest_in_order(desired, widths, self._gaps(layer)), strict=True
        ):
            self.x[slot] = x

    # --- ports -----------------------------------------------------------------------
    def _order_loops(self) -> None:
        """The loops' lanes beside the drawing, from the innermost: the shortest loop
        first, and of loops as long the one from further right (below their sources
        they then nest: the loop from the right turns off above the one from the left
        and never crosses its way down)."""
        layer_of = self.ranked.layer_of
        edges = self.graph.edges

        def key(index: int) -> tuple[int, float, int]:
            edge = edges[index]
            span = layer_of[edge.source] - layer_of[edge.target]
            return span, -self._center(edge.source), index

        self.loops = sorted(self.ranked.back, key=key)

    def _ports(self) -> None:
        chains = self.ranked.chains
        outs: dict[str, list[tuple[float, int, int]]] = {}
        ins: dict[str, list[tuple[float, int, int]]] = {}
        # Loops last (they go right, to their lanes), the outermost lane first.
        far = float("inf")
        lane = {index: k for k, index in enumerate(self.loops)}
        for index, edge in enumerate(self.graph.edges):
            chain = chains.get(index)
            if chain:
                towards, back_from = self._center(chain[1]), self._center(chain[-2])
                key = 0
            else:
                towards = back_from = far
                key = -lane[index]
            outs.setdefault(edge.source, []).append((towards, key, index))
            ins.setdefault(edge.target, []).append((back_from, key, index))
        for node, edges in outs.items():
            for entry, column in zip(sorted(edges), self._columns(node, len(edges)), strict=True):
                self.out_port[entry[2]] = column
        for node, edges in ins.items():
            for entry, column in zip(sorted(edges), self._columns(node, len(edges)), strict=True):
                self.in_port[entry[2]] = column

    def _columns(self, node: str, count: int) -> list[int]:
        border = 0 if is_small(node) else 1
        start = self.x[node] + border
        inner = self.width[node] - 2 * border
        return [start + (2 * j + 1) * inner // (2 * count) for j in range(count)]

    def _straighten(self) -> None:
        """A node with one edge (`__start__`, a leaf) moves to line its port up with the
        port it joins, when its neighbours leave room: that edge then runs straight."""
        incident: dict[str, list[int]] = {}
        for index, edge in enumerate(self.graph.edges):
            incident.setdefault(edge.source, []).append(index)
            if edge.target != edge.source:
                incident.setdefault(edge.target, []).append(index)
        for layer in self.ranked.layers:
            for position, slot in enumerate(layer):
                edges = incident.get(slot) if isinstance(slot, str) else None
                if not edges or len(edges) != 1 or edges[0] not in self.ranked.chains:
                    continue
                index = edges[0]
                chain = self.ranked.chains[index]
                if slot == chain[0]:
                    mine, ports = self.out_port[index], self.out_port
                    other = self.in_port[index] if len(chain) == 2 else self.x[chain[1]]
                else:
                    mine, ports = self.in_port[index], self.in_port
                    other = self.out_port[index] if len(chain) == 2 else self.x[chain[-2]]
                left = self.x[slot] + other - mine
                gaps = self._gaps(layer)
                if position > 0:
                    before = layer[position - 1]
                    if left < self.x[before] + self.width[before] + gaps[position - 1]:
                        continue
                if position + 1 < len(layer):
                    after = layer[position + 1]
                    if left + self.width[slot] + gaps[position] > self.x[after]:
                        continue
                if left >= self.margin:
                    self.x[slot] = left
                    ports[index] = other


def _closest_in_order(
    desired: Sequence[float], widths: Sequence[int], gaps: Sequence[int]
) -> list[int]:
    """Lefts as close as can be to `desired` (least squares) with each slot at least
    `gaps` cells right of the one before: pool adjacent violators, then round."""
    offsets = []
    offset = 0
    for width, gap in zip(widths, gaps, strict=True):
        offsets.append(offset)
        offset += width + gap
    blocks: list[list[float]] = []  # [mean, count]
    for want, offset in zip(desired, offsets, strict=True):
        blocks.append([want - offset, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            previous = blocks[-1]
            total = previous[1] + count
            previous[0] = (previous[0] * previous[1] + mean * count) / total
            previous[1] = total
    lefts: list[int] = []
    index = 0
    for mean, count in blocks:
        for _ in range(int(count)):
            left = round(mean + offsets[index])
            if lefts:
                left = max(left, lefts[-1] + widths[index - 1] + gaps[index - 1])
            lefts.append(left)
            index += 1
    return lefts
