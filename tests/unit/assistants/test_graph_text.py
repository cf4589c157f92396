"""`graph_text`: graphs drawn as text, readable for the demo chat graph's loop."""

from __future__ import annotations

from rich.cells import cell_len

from agent_tui.assistants.graph_text import (
    ARROW,
    Edge,
    back_edges,
    edges_of,
    graph_lines,
    graph_text,
    layers,
)
from agent_tui.client.models import AssistantGraph

# As `GET /assistants/{id}/graph` answers for the demo chat graph.
CHAT = AssistantGraph.model_validate(
    {
        "nodes": [
            {"id": "__start__", "type": "runnable", "data": {"name": "__start__"}},
            {"id": "agent", "type": "runnable", "data": {"name": "agent"}},
            {"id": "tools", "type": "runnable", "data": {"name": "tools"}},
            {"id": "approve", "type": "runnable", "data": {"name": "approve"}},
            {"id": "__end__"},
        ],
        "edges": [
            {"source": "__start__", "target": "agent"},
            {"source": "agent", "target": "__end__", "conditional": True},
            {"source": "agent", "target": "approve", "conditional": True},
            {"source": "agent", "target": "tools", "conditional": True},
            {"source": "approve", "target": "agent"},
            {"source": "tools", "target": "agent"},
        ],
    }
)


def test_the_chat_graph_reads_top_to_bottom_with_its_loop_marked() -> None:
    nodes, edges = edges_of(CHAT)
    assert graph_text(nodes, edges) == "\n".join(
        [
            "Layers",
            "   0  __start__",
            "   1  agent",
            "   2  tools  ·  approve",
            "   3  __end__",
            "",
            "Edges",
            "  __start__ ──▶ agent",
            "  agent     ╌╌▶ tools      (conditional)",
            "            ╌╌▶ approve    (conditional)",
            "            ╌╌▶ __end__    (conditional)",
            "  tools     ──▶ agent      ↺ loop",
            "  approve   ──▶ agent      ↺ loop",
        ]
    )


def test_a_straight_line_graph() -> None:
    nodes = ["__start__", "inc", "dbl", "__end__"]
    edges = [Edge("__start__", "inc"), Edge("inc", "dbl"), Edge("dbl", "__end__")]
    assert layers(nodes, edges) == [["__start__"], ["inc"], ["dbl"], ["__end__"]]
    assert "  inc       ──▶ dbl" in graph_text(nodes, edges).splitlines()


def test_a_self_loop_is_a_back_edge_and_end_stays_last() -> None:
    nodes = ["__start__", "tick", "__end__"]
    edges = [
        Edge("__start__", "tick"),
        Edge("tick", "__end__", conditional=True),
        Edge("tick", "tick", conditional=True),
    ]
    assert back_edges(nodes, edges) == {("tick", "tick")}
    assert layers(nodes, edges)[-1] == ["__end__"]
    text = graph_text(nodes, edges)
    assert "╌╌▶ tick       (conditional)  ↺ loop" in text


def test_edge_labels_and_nodes_with_no_edges_are_shown() -> None:
    nodes = ["__start__", "a", "orphan", "__end__"]
    edges = [Edge("__start__", "a"), Edge("a", "__end__", conditional=True, label="done")]
    text = graph_text(nodes, edges)
    assert "(done, conditional)" in text
    assert "No outgoing edges: orphan" in text


def test_pieces_carry_kinds_for_styling() -> None:
    nodes, edges = edges_of(CHAT)
    kinds = {kind for line in graph_lines(nodes, edges) for _, kind in line}
    assert {"node", "edge", "conditional", "loop", "label"} <= kinds


def test_an_empty_graph_says_so() -> None:
    assert graph_text([], []) == "This graph has no nodes."


def test_wide_and_multi_line_names_keep_the_arrows_in_one_column() -> None:
    # Padding by characters put the arrows after a CJK or emoji name one cell per
    # character too far right; a newline in a name broke its row in two.
    nodes = ["__start__", "検索する", "📝 note", "two\nlines", "__end__"]
    edges = [
        Edge("__start__", "検索する"),
        Edge("検索する", "📝 note"),
        Edge("📝 note", "two\nlines"),
        Edge("two\nlines", "__end__"),
    ]
    text = graph_text(nodes, edges)
    edge_lines = text.split("Edges\n", 1)[1].splitlines()
    assert len(edge_lines) == 4
    assert "  two lines ──▶ __end__" in edge_lines
    arrow_cells = {cell_len(line[: line.index(ARROW)]) for line in edge_lines}
    assert len(arrow_cells) == 1, edge_lines
