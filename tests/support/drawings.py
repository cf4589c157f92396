"""Generated graphs and the checks every graph drawing must pass (`agent_tui.graph_drawing`).

`check_drawing` asserts what a reader of the drawing would notice: no two boxes overlap,
no edge runs through a box, every edge starts just below its source and ends in an
arrowhead just above its target, conditional edges are dashed, every name is shown.
"""

from __future__ import annotations

import itertools
import random

from rich.cells import cell_len

from agent_tui.graph_drawing import Edge, Graph, Layout, layout, render_lines

SOLID = set("│─┌┐└┘├┤┬┴┼|-+")
DASHED = set("╎╌:.")
ARROWS = set("▼v")


def chain(count: int) -> Graph:
    names = ["__start__", *(f"n{i}" for i in range(count)), "__end__"]
    return Graph.of(names, [Edge(a, b) for a, b in itertools.pairwise(names)])


def fan_out(count: int) -> Graph:
    leaves = [f"leaf{i}" for i in range(count)]
    edges = [Edge("__start__", "hub")]
    edges += [Edge("hub", leaf, conditional=True) for leaf in leaves]
    edges += [Edge(leaf, "__end__") for leaf in leaves]
    return Graph.of([], edges)


def random_graph(count: int, seed: int, *, loops: int = 0) -> Graph:
    """`count` nodes from `__start__` to `__end__`: each reached from an earlier one,
    a few extra forward edges (some conditional, some long) and `loops` back edges."""
    rng = random.Random(seed)
    names = [f"node{i}" for i in range(count)]
    edges = [Edge("__start__", names[0])]
    for index in range(1, count):
        edges.append(Edge(names[rng.randrange(max(0, index - 6), index)], names[index]))
    for _ in range(count // 3):
        a = rng.randrange(count - 1)
        b = rng.randrange(a + 1, min(count, a + 12))
        edges.append(Edge(names[a], names[b], conditional=rng.random() < 0.4))
    for _ in range(loops):
        a = rng.randrange(1, count)
        edges.append(Edge(names[a], names[rng.randrange(0, a)]))
    edges += [Edge(name, "__end__") for name in names[-3:]]
    return Graph.of(["__start__", *names, "__end__"], edges)


def _by_cell(line: str) -> str:
    """`line` with a wide character's second cell shown as a NUL: indexes are cells."""
    return "".join(char + "\0" * (cell_len(char) - 1) for char in line)


def _cells(points: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    cells = [points[0]]
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        assert ax == bx or ay == by, f"a slanted step {points}"
        steps = max(abs(bx - ax), abs(by - ay))
        for k in range(1, steps + 1):
            cells.append((ax + (bx - ax) * k // steps, ay + (by - ay) * k // steps))
    return cells


def check_drawing(graph: Graph, *, compact: bool = False, ascii: bool = False) -> Layout:
    placed = layout(graph, compact=compact)
    lines = render_lines(placed, ascii=ascii)
    boxes = list(placed.boxes.values())
    assert {box.node for box in boxes} == set(graph.nodes)
    for i, one in enumerate(boxes):
        for other in boxes[i + 1 :]:
            apart = (
                one.x + one.width <= other.x
                or other.x + other.width <= one.x
                or one.y + one.height <= other.y
                or other.y + other.height <= one.y
            )
            assert apart, f"{one.node} and {other.node} overlap"
    lines = [_by_cell(line) for line in lines]
    for frame in placed.frames:  # round its subgraph's boxes, no other box inside
        inside = (frame.x, frame.y, frame.x + frame.width, frame.y + frame.height)
        for box in boxes:
            within = (
                inside[0] < box.x
                and box.x + box.width < inside[2]
                and inside[1] < box.y
                and box.y + box.height < inside[3]
            )
            outside = (
                box.x + box.width <= inside[0]
                or inside[2] <= box.x
                or box.y + box.height <= inside[1]
                or inside[3] <= box.y
            )
            mine = box.node.rpartition(":")[0] == frame.name
            assert within if mine else outside, f"{box.node} and the frame of {frame.name}"
        assert lines[frame.y][frame.x] in "╭#" and lines[inside[3] - 1][inside[2] - 1] in "╯#"
    for box in boxes:
        row = lines[box.y + (box.height // 2)]
        assert _by_cell(box.name) in row[box.x : box.x + box.width + 1], (
            f"{box.name!r} not in {row!r}"
        )
    cell_owners: dict[tuple[int, int], int] = {}
    for route in placed.routes:
        cells = _cells(route.points)
        for cell in cells:
            assert not any(box.contains(*cell) for box in boxes), f"{route.edge} through a box"
            cell_owners[cell] = cell_owners.get(cell, 0) + 1
        source, target = placed.boxes[route.edge.source], placed.boxes[route.edge.target]
        (sx, sy), (tx, ty) = route.points[0], route.points[-1]
        assert sy == source.y + source.height and source.x <= sx < source.x + source.width
        assert ty == target.y - 1 and target.x <= tx < target.x + target.width
        assert lines[ty][tx] in ARROWS, f"no arrowhead for {route.edge}"
    for route in placed.routes:
        only_mine = [
            lines[y][x]
            for x, y in _cells(route.points)[:-1]
            if cell_owners[(x, y)] == 1  # a crossing is drawn solid
        ]
        if route.edge.conditional:
            assert all(char not in SOLID for char in only_mine if char not in "┌┐└┘+")
            assert any(char in DASHED for char in only_mine), f"{route.edge} not dashed"
        else:
            assert not any(char in DASHED for char in only_mine), f"{route.edge} dashed"
    return placed
