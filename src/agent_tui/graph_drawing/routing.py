"""Rows for the layers and the gaps between them, and every edge's path (see
`placement`): tracks in each gap, lanes beside the drawing for the back edges."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from agent_tui.graph_drawing.model import Box, Frame, Graph, Layout, Point, Route, cluster_of
from agent_tui.graph_drawing.placement import Placer, shorten


@dataclass(slots=True)
class _Item:
    """One edge's crossing of one gap: verticals above its track, below it, its span."""

    above: tuple[int, ...]
    below: tuple[int, ...]
    low: int
    high: int
    order: tuple[int, int] = (0, 0)  # loops first: see `route`
    track: int = -1
    before: list[_Item] = field(default_factory=list)


def _assign_tracks(items: list[_Item]) -> int:
    """Give each item a track; an item whose vertical goes up from a column where
    another's comes down from above gets a lower track than that one (so the two never
    share cells). Items on one track keep a blank cell between them. The tracks used.

    Going left, the leftmost edge takes the top track; going right, the rightmost: so
    edges fanning out of one box (or into one) never cross each other."""
    from_above: dict[int, _Item] = {}
    for item in items:
        for column in item.above:
            from_above[column] = item
    for item in items:
        for column in item.below:
            first = from_above.get(column)
            if first is not None and first is not item:
                item.before.append(first)
    ordered = sorted(items, key=lambda item: (item.order, item.low, item.high))
    loops = [item for item in ordered if item.order[0] < 0]
    for first, second in itertools.pairwise(loops):  # nested, in that order
        second.before.append(first)
    # In that order, each item below every earlier item it would touch (not in a hole
    # above one: two edges of a fan-out would cross there); an item that must be below
    # another (a shared column) places that one first.
    placed: list[_Item] = []
    visiting: set[int] = set()

    def place(item: _Item) -> None:
        if item.track >= 0 or id(item) in visiting:
            return  # placed, or a cycle of shared columns: drawn anyway
        visiting.add(id(item))
        for other in item.before:
            place(other)
        track = max((other.track + 1 for other in item.before if other.track >= 0), default=0)
        for other in placed:
            if item.low <= other.high + 1 and other.low - 1 <= item.high:
                track = max(track, other.track + 1)
        item.track = track
        placed.append(item)

    for item in ordered:
        place(item)
    return max((item.track + 1 for item in placed), default=0)


def layout(graph: Graph, *, compact: bool = False) -> Layout:
    """Where every box goes and every edge runs (`compact`: boxes of just a name)."""
    return route(Placer(graph, compact).place())


def route(placer: Placer) -> Layout:
    graph = placer.graph
    ranked = placer.ranked
    count = len(ranked.layers)
    right = max((placer.x[s] + placer.width[s] for s in placer.x), default=0)
    layer_of = ranked.layer_of
    backs = placer.loops  # the innermost lane first
    lane = {index: right + 1 + placer.margin + 2 * k for k, index in enumerate(backs)}

    gaps: dict[int, list[_Item]] = {g: [] for g in range(-1, count)}
    hops: dict[tuple[int, int], _Item] = {}  # (edge, gap) → its item

    def column(slot: object, index: int, *, leaving: bool) -> int:
        if isinstance(slot, str):
            return placer.out_port[index] if leaving else placer.in_port[index]
        return placer.x[slot]  # type: ignore[index]

    for index, chain in ranked.chains.items():
        for upper, lower in itertools.pairwise(chain):
            top = column(upper, index, leaving=True)
            bottom = column(lower, index, leaving=False)
            if top == bottom:
                continue
            gap = layer_of[upper] if isinstance(upper, str) else upper[1]
            # Going left, the leftmost takes the top track; going right, the rightmost:
            # so edges fanning out of one box (or into one) never cross each other.
            sweep = (0, min(top, bottom)) if bottom < top else (1, -max(top, bottom))
            item = _Item((top,), (bottom,), min(top, bottom), max(top, bottom), sweep)
            gaps[gap].append(item)
            hops[(index, gap)] = item
    for index in backs:
        edge = graph.edges[index]
        out_gap, in_gap = layer_of[edge.source], layer_of[edge.target] - 1
        port_out, port_in = placer.out_port[index], placer.in_port[index]
        # Below the source the inner loop takes the top track, above the target the
        # outer one: so loops nest instead of crossing (their ports are in that order).
        leaving = _Item((port_out, lane[index]), (), port_out, lane[index], (-1, lane[index]))
        coming = _Item((), (lane[index], port_in), port_in, lane[index], (-1, -lane[index]))
        gaps[out_gap].append(leaving)
        gaps[in_gap].append(coming)
        hops[(index, out_gap)] = leaving
        hops[(index, in_gap)] = coming
    tracks = {gap: _assign_tracks(items) for gap, items in gaps.items()}

    # Rows: the top gap (loops into the first layer), then each layer's band and the gap
    # below it (a stub row, the tracks, an arrow row), then the bottom gap (loops out).
    band_top: list[int] = []
    band_height: list[int] = []
    track_top: dict[int, int] = {}
    y = 0
    if tracks[-1]:
        track_top[-1] = 0
        y = tracks[-1] + 1
    for level, layer in enumerate(ranked.layers):
        band_top.append(y)
        height = max((placer.height[slot] for slot in layer), default=1)
        band_height.append(height)
        y += height
        if level < count - 1:
            track_top[level] = y + 1
            y += tracks[level] + 2
        elif tracks[level]:
            track_top[level] = y + 1
            y += tracks[level] + 1

    def row(index: int, gap: int) -> int:
        return track_top[gap] + hops[(index, gap)].track

    routes: list[Route] = []
    for index, edge in enumerate(graph.edges):
        source, target = layer_of[edge.source], layer_of[edge.target]
        start = (placer.out_port[index], band_top[source] + placer.height[edge.source])
        end = (placer.in_port[index], band_top[target] - 1)
        points: list[Point] = [start]
        if index in lane:
            out_row, in_row = row(index, source), row(index, target - 1)
            points += [
                (start[0], out_row),
                (lane[index], out_row),
                (lane[index], in_row),
                (end[0], in_row),
            ]
        else:
            chain = ranked.chains[index]
            for upper in chain[:-1]:
                gap = layer_of[upper] if isinstance(upper, str) else upper[1]
                hop = hops.get((index, gap))
                if hop is not None:
                    track_row = track_top[gap] + hop.track
                    points += [(hop.above[0], track_row), (hop.below[0], track_row)]
        points.append(end)
        routes.append(Route(edge, index in lane, _corners(points)))

    boxes: dict[str, Box] = {}
    for level, layer in enumerate(ranked.layers):
        for order, slot in enumerate(s for s in layer if isinstance(s, str)):
            boxes[slot] = Box(
                slot,
                placer.names[slot],
                level,
                order,
                placer.x[slot],
                band_top[level],
                placer.width[slot],
                placer.height[slot],
                placer.height[slot] == 1,
            )
    width = max([right + placer.margin, *(x + 1 for x in lane.values())])
    frames = _frames(boxes, band_top, band_height, y, placer.compact)
    return Layout(boxes, tuple(routes), width, y, placer.compact, frames)


def _frames(
    boxes: dict[str, Box], band_top: list[int], band_height: list[int], height: int, compact: bool
) -> tuple[Frame, ...]:
    """A frame round each subgraph's boxes: from the row above its first layer to the row
    below its last, a blank column inside each side. Left out where it would cut a box
    of another subgraph, or another frame, or leave the drawing."""
    members: dict[str, list[Box]] = {}
    for box in boxes.values():
        if cluster_of(box.node):
            members.setdefault(cluster_of(box.node), []).append(box)
    frames: list[Frame] = []
    for name, inside in members.items():
        first = min(box.layer for box in inside)
        last = max(box.layer for box in inside)
        left = min(box.x for box in inside) - 2
        right = max(box.x + box.width for box in inside) + 1
        top, bottom = band_top[first] - 1, band_top[last] + band_height[last]
        if left < 0 or top < 0 or bottom >= height:
            continue
        frame = Frame(
            shorten(name, 16 if compact else 30), left, top, right - left + 1, bottom - top + 1
        )
        cut = any(
            _meets(frame, box.x, box.y, box.width, box.height)
            for box in boxes.values()
            if not box.node.startswith(name + ":")
        ) or any(_meets(frame, f.x, f.y, f.width, f.height) for f in frames)
        if not cut:
            frames.append(frame)
    return tuple(frames)


def _meets(frame: Frame, x: int, y: int, width: int, height: int) -> bool:
    return not (
        x + width <= frame.x
        or frame.x + frame.width <= x
        or y + height <= frame.y
        or frame.y + frame.height <= y
    )


def _corners(points: list[Point]) -> tuple[Point, ...]:
    """The path without repeated points or points in the middle of a straight run."""
    kept: list[Point] = []
    for point in points:
        if kept and kept[-1] == point:
            continue
        if len(kept) >= 2:
            (ax, ay), (bx, by) = kept[-2], kept[-1]
            if (ax == bx == point[0]) or (ay == by == point[1]):
                kept[-1] = point
                continue
        kept.append(point)
    return tuple(kept)
