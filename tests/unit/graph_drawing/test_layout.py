"""The graph drawing on generated graphs: boxes apart, edges in the gaps, arrowheads,
dashed conditional edges, loops up the side; and whatever cannot be drawn, as text."""

from __future__ import annotations

import random

import pytest

from agent_tui.graph_drawing import Edge, Graph, draw, draw_payload, layout
from tests.support.drawings import check_drawing, fan_out, random_graph

DIAMOND = Graph.of(
    [],
    [
        Edge("__start__", "a"),
        Edge("a", "b"),
        Edge("a", "c", conditional=True),
        Edge("b", "d"),
        Edge("c", "d"),
        Edge("d", "__end__"),
    ],
)
LOOPS = Graph.of(
    [],
    [
        Edge("__start__", "plan"),
        Edge("plan", "act"),
        Edge("act", "check"),
        Edge("check", "plan", conditional=True),
        Edge("check", "act"),
        Edge("check", "__end__", conditional=True),
    ],
)
SELF_LOOP_AND_LONER = Graph.of(
    ["__start__", "tick", "alone", "__end__"],
    [Edge("__start__", "tick"), Edge("tick", "tick", conditional=True), Edge("tick", "__end__")],
)
GRAPHS = {
    "diamond": DIAMOND,
    "loops": LOOPS,
    "self-loop and a lone node": SELF_LOOP_AND_LONER,
    "fan-out of 12": fan_out(12),
    "50 nodes with loops": random_graph(50, seed=1, loops=5),
    "80 nodes": random_graph(80, seed=7),
    "200 nodes with loops": random_graph(200, seed=3, loops=10),
}


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_every_drawing_keeps_boxes_apart_and_edges_in_the_gaps(
    name: str, compact: bool, ascii: bool
) -> None:
    check_drawing(GRAPHS[name], compact=compact, ascii=ascii)


def test_layers_run_top_to_bottom_and_loops_are_marked() -> None:
    placed = layout(LOOPS)
    layer = {node: box.layer for node, box in placed.boxes.items()}
    assert layer == {"__start__": 0, "plan": 1, "act": 2, "check": 3, "__end__": 4}
    loops = {(r.edge.source, r.edge.target) for r in placed.routes if r.back}
    assert loops == {("check", "plan"), ("check", "act")}
    right = max(box.x + box.width for box in placed.boxes.values())
    for route in placed.routes:
        if route.back:  # up the side: beside every box
            assert max(x for x, _ in route.points) >= right


def test_a_diamond_has_no_crossings_and_keeps_b_and_c_side_by_side() -> None:
    placed = layout(DIAMOND)
    b, c = placed.boxes["b"], placed.boxes["c"]
    assert b.layer == c.layer == 2
    assert b.y == c.y
    assert "┼" not in draw(DIAMOND)


def test_the_compact_form_is_narrower_and_names_the_subgraph_nodes_by_their_last_part() -> None:
    nested = Graph.of(
        [],
        [
            Edge("__start__", "prepare"),
            Edge("prepare", "chat:__start__"),
            Edge("chat:__start__", "chat:agent"),
            Edge("chat:agent", "chat:__end__", conditional=True),
            Edge("chat:__end__", "__end__"),
        ],
    )
    full, compact = layout(nested), layout(nested, compact=True)
    assert compact.width < full.width
    assert compact.boxes["chat:agent"].name == "agent"
    assert full.boxes["chat:agent"].name == "chat:agent"
    check_drawing(nested, compact=True)


def test_a_hostile_name_is_drawn_as_inert_text() -> None:
    graph = Graph.of([], [Edge("__start__", "evil\x1b[31mred\x07\nnode"), Edge("x", "__end__")])
    text = draw(graph)
    assert "\x1b" not in text and "\x07" not in text
    assert "evil" in text
    check_drawing(graph)


def test_a_very_long_name_is_shortened() -> None:
    graph = Graph.of([], [Edge("__start__", "n" * 200)])
    assert max(len(line) for line in draw(graph).splitlines()) < 40
    check_drawing(graph)


def test_an_empty_graph_says_so() -> None:
    assert draw(Graph.of([], [])) == "This graph has no nodes."


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ({"nodes": [{"id": "a"}, {"id": "b"}]}, "no edge list"),
        ({"nodes": [{"id": "a"}], "edges": None}, "no edge list"),
        ({"nodes": ["a", "b"], "edges": []}, "unknown shape"),
        ({"nodes": [{"name": "a"}], "edges": []}, "unknown shape"),
        ({"nodes": [{"id": "a"}], "edges": [{"from": "a"}]}, "edges of an unknown shape"),
        ([1, 2], "not an object"),
    ],
)
def test_what_cannot_be_drawn_is_told_as_text(payload: object, said: str) -> None:
    text = draw_payload(payload)
    assert said in text


def test_a_missing_edge_list_still_names_the_nodes() -> None:
    text = draw_payload({"nodes": [{"id": "agent"}, {"id": "tools\x1b[2J"}]})
    assert "agent" in text and "tools" in text and "\x1b" not in text


def test_a_payload_that_can_be_drawn_is_drawn() -> None:
    payload = {
        "nodes": [{"id": "__start__"}, {"id": "agent", "type": "odd"}, {"id": "__end__"}],
        "edges": [
            {"source": "__start__", "target": "agent"},
            {"source": "agent", "target": "__end__", "conditional": True},
        ],
    }
    text = draw_payload(payload)
    assert "│ agent │" in text and "▼" in text and "╎" in text


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_the_edges_of_a_fan_out_never_cross(compact: bool) -> None:
    text = draw(fan_out(12), compact=compact)
    assert "┼" not in text
    assert text.count("▼") == 1 + 12 + 12


@pytest.mark.parametrize("seed", range(40))
def test_any_graph_at_all_is_drawn_without_breaking_the_rules(seed: int) -> None:
    # Edges a compiled graph would not have too: out of `__end__`, into `__start__`,
    # both ways between two nodes, duplicates, self-loops, wide names.
    rng = random.Random(seed)
    names = ["__start__", "__end__", "a", "b", "c", "d", "名前", "e:__end__", "f"]
    count = rng.randrange(1, len(names) + 1)
    chosen = names[:count]
    edges = [
        Edge(rng.choice(chosen), rng.choice(chosen), conditional=rng.random() < 0.3)
        for _ in range(rng.randrange(0, 3 * count))
    ]
    graph = Graph.of(chosen, edges)
    for compact in (False, True):
        check_drawing(graph, compact=compact)
        check_drawing(graph, compact=compact, ascii=True)
