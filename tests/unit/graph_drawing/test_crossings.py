"""Fewer crossing lines: the order of each layer (`graph_drawing.ordering`) against the
barycentre sweeps it replaced, on seeded generated graphs; and small graphs that can be
drawn without a crossing are drawn without one."""

from __future__ import annotations

import itertools

import pytest

from agent_tui.graph_drawing import Edge, Graph, draw
from agent_tui.graph_drawing.layers import crossings, rank
from tests.support.drawings import fan_out, random_graph
from tests.unit.graph_drawing.test_layout import DIAMOND
from tests.unit.graph_drawing.test_small_graphs import CHAT, NESTED_XRAY

# Before: (crossings counted over the ordered layers, `┼` cells in the full drawing) of
# `random_graph(nodes, seed, loops=nodes // 20)` as the layers were ordered until
# `ordering` came (4 barycentre sweeps that left loops out), counted by `crossings`.
BEFORE = {
    (20, 0): (2, 2), (20, 1): (9, 9), (20, 2): (4, 4), (20, 3): (7, 7), (20, 4): (2, 2),
    (20, 5): (0, 0), (20, 6): (3, 3), (20, 7): (0, 0), (20, 8): (3, 3), (20, 9): (0, 0),
    (50, 0): (9, 9), (50, 1): (27, 29), (50, 2): (16, 16), (50, 3): (14, 14),
    (50, 4): (15, 15), (50, 5): (11, 11), (50, 6): (10, 12), (50, 7): (16, 22),
    (50, 8): (13, 15), (50, 9): (32, 31),
    (200, 0): (103, 119), (200, 1): (82, 82), (200, 2): (161, 172), (200, 3): (120, 134),
    (200, 4): (318, 378), (200, 5): (370, 399), (200, 6): (171, 190), (200, 7): (128, 139),
    (200, 8): (106, 113), (200, 9): (197, 205),
}  # fmt: skip


def seeded(nodes: int, seed: int) -> Graph:
    return random_graph(nodes, seed=seed, loops=nodes // 20)


def test_seeded_graphs_are_drawn_with_fewer_crossing_lines() -> None:
    worse = []
    counted = drawn = 0
    for (nodes, seed), (counted_before, drawn_before) in BEFORE.items():
        graph = seeded(nodes, seed)
        now = crossings(rank(graph))
        lines = draw(graph).count("┼")
        if now > counted_before or lines > drawn_before:
            worse.append(((nodes, seed), (counted_before, drawn_before), (now, lines)))
        counted += now
        drawn += lines
    assert not worse, f"more crossings than before: {worse}"
    # Before: 1949 counted, 2135 drawn; now 1171 and 1324.
    assert counted <= 0.7 * sum(before for before, _ in BEFORE.values())
    assert drawn <= 0.7 * sum(before for _, before in BEFORE.values())


@pytest.mark.parametrize("nodes", [50, 200])
def test_the_crossings_of_big_graphs_drop_by_a_quarter_at_least(nodes: int) -> None:
    before = sum(drawn for (size, _), (_, drawn) in BEFORE.items() if size == nodes)
    now = sum(draw(seeded(nodes, seed)).count("┼") for seed in range(10))
    assert now <= 0.75 * before


def test_the_counter_counts_the_crossing_that_cannot_be_avoided() -> None:
    # plan and search both go to write and check: one crossing whatever the order.
    graph = Graph.of(
        [],
        [
            Edge("__start__", "plan"),
            Edge("__start__", "search"),
            Edge("plan", "write"),
            Edge("plan", "check"),
            Edge("search", "write"),
            Edge("search", "check"),
        ],
    )
    assert crossings(rank(graph)) == 1
    assert draw(graph).count("┼") == 1


def tree(depth: int, arity: int) -> Graph:
    """Listed level by level, each level's nodes by the last letter first: a first order
    in which the branches cross."""
    edges = [Edge("__start__", "t")]
    level = ["t"]
    for _ in range(depth):
        level = [f"{parent}{k}" for parent in level for k in range(arity)]
        edges += [Edge(child[:-1], child) for child in level]
    edges += [Edge(leaf, "__end__") for leaf in level]
    names = {edge.target for edge in edges}
    return Graph.of(sorted(names, key=lambda name: (len(name), name[::-1])), edges)


def diamonds(count: int) -> Graph:
    edges = [Edge("__start__", "d0")]
    for i in range(count):
        edges += [
            Edge(f"d{i}", f"left{i}"),
            Edge(f"d{i}", f"right{i}", conditional=True),
            Edge(f"left{i}", f"d{i + 1}"),
            Edge(f"right{i}", f"d{i + 1}"),
        ]
    return Graph.of([], [*edges, Edge(f"d{count}", "__end__")])


def router(tools: int) -> Graph:
    """An agent that calls one of its tools and comes back: every tool loops to it."""
    edges = [Edge("__start__", "router"), Edge("router", "__end__", conditional=True)]
    for i in range(tools):
        edges += [Edge("router", f"tool{i}", conditional=True), Edge(f"tool{i}", "router")]
    return Graph.of([], edges)


def skips(count: int) -> Graph:
    """A chain with an edge past every node (long edges, planar)."""
    names = ["__start__", *(f"s{i}" for i in range(count)), "__end__"]
    edges = [Edge(a, b) for a, b in itertools.pairwise(names)]
    edges += [Edge(a, c, conditional=True) for a, c in zip(names, names[2:], strict=False)]
    return Graph.of(names, edges)


def branches() -> Graph:
    """Three branches from one split to one join, and a shortcut; listed crosswise."""
    edges = [Edge("__start__", "split"), Edge("split", "join", conditional=True)]
    for side in "abc":
        edges += [
            Edge("split", f"{side}1"),
            Edge(f"{side}1", f"{side}2"),
            Edge(f"{side}2", "join"),
        ]
    nodes = ["__start__", "split", "a1", "b1", "c1", "c2", "b2", "a2", "join", "__end__"]
    return Graph.of(nodes, [*edges, Edge("join", "__end__")])


CROSSING_FREE = {
    "the chat graph (its tools and approve loops)": CHAT,
    "the nested graph with xray": NESTED_XRAY,
    "a router with five tool loops": router(5),
    "a diamond": DIAMOND,
    "four diamonds in a row": diamonds(4),
    "a binary tree": tree(3, 2),
    "a ternary tree": tree(2, 3),
    "a fan-out and fan-in of 12": fan_out(12),
    "a chain with skips": skips(8),
    "branches and a shortcut": branches(),
}


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
@pytest.mark.parametrize("name", list(CROSSING_FREE))
def test_a_graph_that_can_be_drawn_without_crossings_is(name: str, compact: bool) -> None:
    graph = CROSSING_FREE[name]
    assert crossings(rank(graph)) == 0
    assert "┼" not in draw(graph, compact=compact)
