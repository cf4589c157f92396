"""Crossing reduction: the order of the slots in each layer (see `layers`).

Every edge joins neighbouring layers (long edges through dummy slots). A loop is drawn up
the side: below its source it runs right to a lane beside the drawing, above its target
it comes back left; so it crosses every edge between it and the right side. Each layer
has a `wall`, a fixed slot right of all others, and a loop counts as an edge from its
source to the wall of the layer below and from the wall of the layer above to its target:
the crossings counted are the ones drawn (all but those of two loops beside the drawing),
and loops' ends are pulled to the right.

The order: sweeps down and up, each layer sorted by the median of its neighbours'
positions in the layer just placed (the barycentre breaks ties; a slot without
neighbours keeps its place), each sweep followed by a transpose pass (neighbours in a
layer swapped while that removes crossings); the order with the fewest crossings seen is
kept. Two starts (the order given, and each layer in the order a depth-first walk meets
it), the better kept. Then sifting: each slot in turn moved to the place in its layer
where it crosses least (layers of up to `SIFT_WIDEST` slots). A subgraph's slots (xray)
stay side by side: sorted as one block, never swapped with another's (and not sifted).

Where the slots finally go left and right (`placement`: centred on their neighbours,
gaps kept, ports spread along the boxes) is decided after this and keeps this order.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right, insort
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

SWEEPS = 8  # down and up, alternating
QUIET = 3  # sweeps without a better order before giving up
TRANSPOSE_PASSES = 6
SIFT_PASSES = 1
SIFT_WIDEST = 64  # slots: sifting a layer costs the square of its width

T = TypeVar("T", bound=Hashable)


class Ordering(Generic[T]):
    """The slots of every layer as small integers, and their positions."""

    def __init__(
        self,
        layers: Sequence[Sequence[T]],
        links: Sequence[tuple[T, T]],
        loops: Sequence[tuple[int, T, int, T]],
        cluster: Callable[[T], str],
    ) -> None:
        """`links`: (upper, lower) slots of neighbouring layers; `loops`: (source's
        layer, source, target's layer, target) of each loop."""
        self.slots: list[T] = [slot for layer in layers for slot in layer]
        ids = {slot: index for index, slot in enumerate(self.slots)}
        count = len(self.slots)
        self.walls = list(range(count, count + len(layers)))
        self.layers: list[list[int]] = [[ids[slot] for slot in layer] for layer in layers]
        total = count + len(layers)
        self.pos = [0] * total
        self.up: list[list[int]] = [[] for _ in range(total)]
        self.down: list[list[int]] = [[] for _ in range(total)]
        self.level = [0] * total
        for level, layer in enumerate(self.layers):
            for slot in layer:
                self.level[slot] = level
            self.level[self.walls[level]] = level
        self.gaps: list[list[tuple[int, int]]] = [[] for _ in layers]
        for upper, lower in links:
            self._link(ids[upper], ids[lower])
        for source_level, source, target_level, target in loops:
            if source_level + 1 < len(layers):
                self._link(ids[source], self.walls[source_level + 1])
            if target_level > 0:
                self._link(self.walls[target_level - 1], ids[target])
        names = [cluster(slot) for slot in self.slots]
        self.cluster = names + [""] * len(layers)
        self.clustered = any(names)
        for level, layer in enumerate(self.layers):
            if self.clustered:
                self.layers[level] = self._grouped(layer)
            self._number(level)

    def _link(self, upper: int, lower: int) -> None:
        self.down[upper].append(lower)
        self.up[lower].append(upper)
        self.gaps[self.level[upper]].append((upper, lower))

    def _number(self, level: int) -> None:
        layer = self.layers[level]
        for index, slot in enumerate(layer):
            self.pos[slot] = index
        self.pos[self.walls[level]] = len(layer)

    def order(self) -> list[list[T]]:
        """Sweeps and transposes from the order given and from a depth-first order;
        the best order found, sifted."""
        given = [list(layer) for layer in self.layers]
        best, fewest = given, self.crossings()
        for start in (given, self._depth_first()):
            if fewest == 0:
                break
            self._restore([list(layer) for layer in start])
            found, count = self._sweeps()
            if count < fewest:
                best, fewest = found, count
        self._restore(best)
        if not self.clustered:
            self._sift(fewest)
        return [[self.slots[slot] for slot in layer] for layer in self.layers]

    def _depth_first(self) -> list[list[int]]:
        """Each layer in the order a depth-first walk down the edges meets its slots (the
        edges in their order): a start where a branch's slots are side by side."""
        met: dict[int, int] = {}
        count = len(self.slots)
        for root in itertools.chain.from_iterable(self.layers):
            stack = [root]
            while stack:
                slot = stack.pop()
                if slot not in met:
                    met[slot] = len(met)
                    stack.extend(lower for lower in reversed(self.down[slot]) if lower < count)
        layers = [sorted(layer, key=met.__getitem__) for layer in self.layers]
        return [self._grouped(layer) for layer in layers] if self.clustered else layers

    def _sweeps(self) -> tuple[list[list[int]], int]:
        best = [list(layer) for layer in self.layers]
        fewest = self.crossings()
        quiet = 0
        for sweep in range(SWEEPS):
            if fewest == 0 or quiet >= QUIET:
                break
            downwards = sweep % 2 == 0
            levels = (
                range(1, len(self.layers)) if downwards else range(len(self.layers) - 2, -1, -1)
            )
            for level in levels:
                self._sort(level, self.up if downwards else self.down)
            self._transpose()
            now = self.crossings()
            if now < fewest:
                fewest, best, quiet = now, [list(layer) for layer in self.layers], 0
            else:
                quiet += 1
        return best, fewest

    def _restore(self, layers: list[list[int]]) -> None:
        self.layers = layers
        for level in range(len(layers)):
            self._number(level)

    def _sift(self, fewest: int) -> None:
        """Move each slot in turn to the place in its layer with the fewest crossings
        (a pass over every layer, then a transpose), while that helps."""
        for _ in range(SIFT_PASSES):
            if fewest == 0:
                return
            kept = [list(layer) for layer in self.layers]
            for level, layer in enumerate(self.layers):
                if len(layer) <= SIFT_WIDEST:
                    self._sift_layer(level)
            self._transpose()
            now = self.crossings()
            if now >= fewest:
                self._restore(kept)
                return
            fewest = now

    def _sift_layer(self, level: int) -> None:
        layer = self.layers[level]
        pos = self.pos
        # The layers above and below stay put meanwhile: swing[one, two] is the change in
        # crossings when `one` moves from just left of `two` to just right of it.
        ups = [[pos[other] for other in self.up[slot]] for slot in layer]
        downs = [[pos[other] for other in self.down[slot]] for slot in layer]
        swing: dict[tuple[int, int], int] = {}
        for i, one in enumerate(layer):
            for j in range(i + 1, len(layer)):
                change = 0
                for mine, theirs in ((ups[i], ups[j]), (downs[i], downs[j])):
                    for a in mine:
                        for b in theirs:
                            if a > b:
                                change -= 1
                            elif a < b:
                                change += 1
                if change:
                    swing[one, layer[j]] = change
                    swing[layer[j], one] = -change
        for slot in list(layer):
            at = layer.index(slot)
            others = layer[:at] + layer[at + 1 :]
            # costs[k]: the crossings of slot's edges when it is just before others[k]
            # (less those when it is first).
            costs = [0]
            for other in others:
                costs.append(costs[-1] + swing.get((slot, other), 0))
            best = min(range(len(costs)), key=lambda k: (costs[k], k != at))
            if best != at:
                others.insert(best, slot)
                layer[:] = others
        self._number(level)

    def _pair(self, left: int, right: int) -> tuple[int, int]:
        """The crossings between two slots' edges with `left` left of `right`, and with
        it right of it."""
        pos = self.pos
        now = after = 0
        for neighbours in (self.up, self.down):
            for one in neighbours[left]:
                for two in neighbours[right]:
                    if pos[one] > pos[two]:
                        now += 1
                    elif pos[one] < pos[two]:
                        after += 1
        return now, after

    # --- counting ------------------------------------------------------------------
    def crossings(self) -> int:
        """Crossings between every two neighbouring layers, loops' included."""
        return sum(self._gap_crossings(links) for links in self.gaps)

    def _gap_crossings(self, links: Sequence[tuple[int, int]]) -> int:
        if len(links) < 2:
            return 0
        pos = self.pos
        pairs = sorted([(pos[upper], pos[lower]) for upper, lower in links])
        seen: list[int] = []
        total = 0
        for _, lower in pairs:
            total += len(seen) - bisect_right(seen, lower)
            insort(seen, lower)
        return total

    # --- sweeps --------------------------------------------------------------------
    def _sort(self, level: int, neighbours: list[list[int]]) -> None:
        """Sort one layer by its neighbours' median position (barycentre, then the
        current place, on a tie); slots without neighbours stay where they are."""
        pos = self.pos
        layer = self.layers[level]
        if len(layer) < 2:
            return
        keyed: list[tuple[float, float, int, int]] = []
        free: list[int] = []
        for index, slot in enumerate(layer):
            others = neighbours[slot]
            if len(others) == 1:  # most slots: a dummy's one neighbour
                at = pos[others[0]]
                keyed.append((at, at, index, slot))
                continue
            if not others:
                free.append(index)
                continue
            linked = sorted([pos[other] for other in others])
            mean = sum(linked) / len(linked)
            middle = len(linked) // 2
            median = (linked[middle] + linked[middle - 1 + len(linked) % 2]) / 2
            keyed.append((median, mean, index, slot))
        keyed.sort()
        ordered = [entry[3] for entry in keyed]
        for index in free:
            ordered.insert(index, layer[index])
        self.layers[level] = self._grouped(ordered) if self.clustered else ordered
        self._number(level)

    def _grouped(self, layer: list[int]) -> list[int]:
        """A subgraph's slots side by side, where the first of them is."""
        first: dict[str, int] = {}
        keys = []
        for position, slot in enumerate(layer):
            name = self.cluster[slot]
            keys.append((first.setdefault(name, position) if name else position, position))
        return [layer[position] for _, position in sorted(keys)]

    def _transpose(self) -> None:
        """Swap neighbours in a layer while that removes crossings with the layers above
        and below (slots of one subgraph, or of none, only)."""
        dirty = set(range(len(self.layers)))
        for _ in range(TRANSPOSE_PASSES):
            if not dirty:
                return
            changed: set[int] = set()
            for level in sorted(dirty):
                if self._transpose_layer(level):
                    changed.update((level - 1, level, level + 1))
            dirty = {level for level in changed if 0 <= level < len(self.layers)}

    def _transpose_layer(self, level: int) -> bool:
        layer = self.layers[level]
        pos, cluster, up, down = self.pos, self.cluster, self.up, self.down
        swapped = False
        for index in range(len(layer) - 1):
            left, right = layer[index], layer[index + 1]
            if cluster[left] != cluster[right]:
                continue
            if len(up[left]) == len(up[right]) == len(down[left]) == len(down[right]) == 1:
                # two dummies (the common case), in one step
                above, below = (
                    pos[up[left][0]] - pos[up[right][0]],
                    pos[down[left][0]] - pos[down[right][0]],
                )
                if (above > 0) + (below > 0) > (above < 0) + (below < 0):
                    layer[index], layer[index + 1] = right, left
                    pos[left], pos[right] = index + 1, index
                    swapped = True
                continue
            now, after = self._pair(left, right)
            if after < now:
                layer[index], layer[index + 1] = right, left
                pos[left], pos[right] = index + 1, index
                swapped = True
        return swapped
