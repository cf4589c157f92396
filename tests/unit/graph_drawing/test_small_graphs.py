"""Exact drawings of small graphs: the demo chat graph (its tools/approve loops back to
the agent) and the nested test graph with xray (the chat graph's nodes inside it), as
`GET /assistants/{id}/graph` answers for them (tests/graphs/)."""

from __future__ import annotations

from agent_tui.client.models import AssistantGraph
from agent_tui.graph_drawing import Edge, Graph, draw, graph_from_server, layout_json, mermaid
from tests.support.drawings import check_drawing

CHAT = graph_from_server(
    AssistantGraph.model_validate(
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
)
NESTED_XRAY = Graph.of(
    [
        "__start__",
        "prepare",
        "__end__",
        "chat:__start__",
        "chat:agent",
        "chat:tools",
        "chat:approve",
        "chat:__end__",
    ],
    [
        Edge("__start__", "prepare"),
        Edge("prepare", "chat:__start__"),
        Edge("chat:__end__", "__end__"),
        Edge("chat:__start__", "chat:agent"),
        Edge("chat:agent", "chat:__end__", conditional=True),
        Edge("chat:agent", "chat:approve", conditional=True),
        Edge("chat:agent", "chat:tools", conditional=True),
        Edge("chat:approve", "chat:agent"),
        Edge("chat:tools", "chat:agent"),
    ],
)

CHAT_DRAWN = "\n".join(
    [
        "      (start)",
        "         │",
        "         │ ┌──────────────────┐",
        "         │ │ ┌──────────────┐ │",
        "         ▼ ▼ ▼              │ │",
        "       ┌───────┐            │ │",
        "       │ agent │            │ │",
        "       └───────┘            │ │",
        "         ╎ ╎ ╎              │ │",
        "  ┌╌╌╌╌╌╌┘ ╎ └╌╌╌╌╌╌╌┐      │ │",
        "  ╎      ┌╌┘         ╎      │ │",
        "  ╎      ▼           ▼      │ │",
        "  ╎  ┌───────┐  ┌─────────┐ │ │",
        "  ╎  │ tools │  │ approve │ │ │",
        "  ╎  └───────┘  └─────────┘ │ │",
        "  ╎      │           │      │ │",
        "  ╎      │           └──────┘ │",
        "  ╎      └────────────────────┘",
        "  ▼",
        "(end)",
    ]
)

CHAT_COMPACT_ASCII = "\n".join(
    [
        "   (start)",
        "      |",
        "      | +---------------+",
        "      | | +-----------+ |",
        "      v v v           | |",
        "     +-----+          | |",
        "     |agent|          | |",
        "     +-----+          | |",
        "      : : :           | |",
        "  +...+ : +.....+     | |",
        "  :    ++       :     | |",
        "  :    v        v     | |",
        "  : +-----+ +-------+ | |",
        "  : |tools| |approve| | |",
        "  : +-----+ +-------+ | |",
        "  :    |        |     | |",
        "  :    |        +-----+ |",
        "  :    +----------------+",
        "  v",
        "(end)",
    ]
)

NESTED_XRAY_DRAWN = "\n".join(
    [
        "                  (start)",
        "                     │",
        "                     ▼",
        "                ┌─────────┐",
        "                │ prepare │",
        "                └─────────┘",
        "                     │",
        "                     └┐",
        "╭┈ chat ┈┈┈┈┈┈┈┈┈┈┈┈┈┈▼┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈╮",
        "┊               (chat:start)                   ┊",
        "┊                     │                        ┊",
        "┊                 ┌───┘                        ┊",
        "┊                 │   ┌────────────────────────────┐",
        "┊                 │   │   ┌──────────────────────┐ │",
        "┊                 ▼   ▼   ▼                    ┊ │ │",
        "┊              ┌────────────┐                  ┊ │ │",
        "┊              │ chat:agent │                  ┊ │ │",
        "┊              └────────────┘                  ┊ │ │",
        "┊                 ╎   ╎   ╎                    ┊ │ │",
        "┊      ┌╌╌╌╌╌╌╌╌╌╌┘  ┌┘   └╌╌╌╌╌╌╌╌╌╌╌┐        ┊ │ │",
        "┊      ▼             ▼                ▼        ┊ │ │",
        "┊ (chat:end)  ┌────────────┐  ┌──────────────┐ ┊ │ │",
        "┊      │      │ chat:tools │  │ chat:approve │ ┊ │ │",
        "┊      │      └────────────┘  └──────────────┘ ┊ │ │",
        "╰┈┈┈┈┈┈│┈┈┈┈┈┈┈┈┈┈┈┈┈│┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈│┈┈┈┈┈┈┈┈╯ │ │",
        "       │             │                └──────────┘ │",
        "       │             └─────────────────────────────┘",
        "       ▼",
        "     (end)",
    ]
)

NESTED_XRAY_COMPACT = "\n".join(
    [
        "         (start)",
        "            │",
        "            ▼",
        "        ┌───────┐",
        "        │prepare│",
        "        └───────┘",
        "            │",
        "╭┈ chat ┈┈┈┈▼┈┈┈┈┈┈┈┈┈┈┈┈┈╮",
        "┊        (start)          ┊",
        "┊           │             ┊",
        "┊         ┌─┘             ┊",
        "┊         │ ┌─────────────────┐",
        "┊         │ │ ┌─────────────┐ │",
        "┊         ▼ ▼ ▼           ┊ │ │",
        "┊        ┌─────┐          ┊ │ │",
        "┊        │agent│          ┊ │ │",
        "┊        └─────┘          ┊ │ │",
        "┊         ╎ ╎ ╎           ┊ │ │",
        "┊   ┌╌╌╌╌╌┘ ╎ └╌╌╌╌╌┐     ┊ │ │",
        "┊   ╎      ┌┘       ╎     ┊ │ │",
        "┊   ▼      ▼        ▼     ┊ │ │",
        "┊ (end) ┌─────┐ ┌───────┐ ┊ │ │",
        "┊   │   │tools│ │approve│ ┊ │ │",
        "┊   │   └─────┘ └───────┘ ┊ │ │",
        "╰┈┈┈│┈┈┈┈┈┈│┈┈┈┈┈┈┈┈│┈┈┈┈┈╯ │ │",
        "    │      │        └───────┘ │",
        "    │      └──────────────────┘",
        "    ▼",
        "  (end)",
    ]
)


def test_the_chat_graph_is_drawn_with_its_loops_up_the_side() -> None:
    assert draw(CHAT) == CHAT_DRAWN
    check_drawing(CHAT)


def test_the_chat_graph_compact_in_ascii() -> None:
    assert draw(CHAT, compact=True, ascii=True) == CHAT_COMPACT_ASCII
    check_drawing(CHAT, compact=True, ascii=True)


def test_the_nested_graph_with_xray_shows_the_subgraph_nodes() -> None:
    assert draw(NESTED_XRAY) == NESTED_XRAY_DRAWN
    assert draw(NESTED_XRAY, compact=True) == NESTED_XRAY_COMPACT
    check_drawing(NESTED_XRAY)


def test_the_chat_graph_as_mermaid() -> None:
    assert mermaid(CHAT) == "\n".join(
        [
            "flowchart TD",
            '    n0(["start"])',
            '    n1["agent"]',
            '    n2["tools"]',
            '    n3["approve"]',
            '    n4(["end"])',
            "    n0 --> n1",
            "    n1 -.-> n4",
            "    n1 -.-> n3",
            "    n1 -.-> n2",
            "    n3 --> n1",
            "    n2 --> n1",
        ]
    )


def test_a_mermaid_label_cannot_end_early() -> None:
    text = mermaid(Graph.of([], [Edge('say "hi"', "#1\x1b[31m")]))
    assert 'n0["say #quot;hi#quot;"]' in text
    assert '"#35;1' in text and "\x1b" not in text


def test_the_layout_as_json_gives_boxes_and_routed_points() -> None:
    from agent_tui.graph_drawing import layout

    data = layout_json(layout(CHAT))
    nodes = {node["id"]: node for node in data["nodes"]}
    assert [nodes[n]["layer"] for n in ("__start__", "agent", "tools", "approve", "__end__")] == [
        0,
        1,
        2,
        2,
        3,
    ]
    assert nodes["agent"]["height"] == 3 and nodes["__end__"]["height"] == 1
    loops = [e for e in data["edges"] if e["loop"]]
    assert {(e["source"], e["target"]) for e in loops} == {("tools", "agent"), ("approve", "agent")}
    for edge in data["edges"]:
        source, target = nodes[edge["source"]], nodes[edge["target"]]
        assert edge["points"][0][1] == source["y"] + source["height"]
        assert edge["points"][-1][1] == target["y"] - 1


def test_a_subgraph_is_framed_with_its_name() -> None:
    from agent_tui.graph_drawing import layout

    placed = layout(NESTED_XRAY)
    assert [frame.name for frame in placed.frames] == ["chat"]
    assert "╭┈ chat ┈" in draw(NESTED_XRAY)
    assert "#= chat =" in draw(NESTED_XRAY, ascii=True)
    assert layout_json(placed)["frames"] == [
        {
            "subgraph": "chat",
            "x": placed.frames[0].x,
            "y": placed.frames[0].y,
            "width": placed.frames[0].width,
            "height": placed.frames[0].height,
        }
    ]


def test_two_subgraphs_side_by_side_get_a_frame_each() -> None:

    edges = [Edge("__start__", "split")]
    for sub in ("left", "right"):
        edges += [
            Edge("split", f"{sub}:__start__"),
            Edge(f"{sub}:__start__", f"{sub}:work"),
            Edge(f"{sub}:work", f"{sub}:check", conditional=True),
            Edge(f"{sub}:check", f"{sub}:__end__"),
            Edge(f"{sub}:__end__", "join"),
        ]
    edges.append(Edge("join", "__end__"))
    graph = Graph.of([], edges)
    placed = check_drawing(graph)
    assert sorted(frame.name for frame in placed.frames) == ["left", "right"]
    check_drawing(graph, compact=True, ascii=True)


def test_a_collapsed_subgraph_is_one_node_again() -> None:
    from agent_tui.graph_drawing import collapse, subgraphs

    assert subgraphs(NESTED_XRAY) == ["chat"]
    closed = collapse(NESTED_XRAY, [])
    assert closed.nodes == ("__start__", "prepare", "__end__", "chat")
    assert set(closed.edges) == {
        Edge("__start__", "prepare"),
        Edge("prepare", "chat"),
        Edge("chat", "__end__"),
    }
    assert collapse(NESTED_XRAY, ["chat"]) == NESTED_XRAY


def test_only_the_expanded_subgraph_of_two_levels_opens() -> None:
    from agent_tui.graph_drawing import collapse, subgraphs

    graph = Graph.of(
        [],
        [
            Edge("__start__", "outer:inner:leaf"),
            Edge("outer:inner:leaf", "outer:after"),
            Edge("outer:after", "__end__"),
        ],
    )
    assert subgraphs(graph) == ["outer", "outer:inner"]
    assert collapse(graph, ["outer"]).nodes == (
        "__start__",
        "outer:inner",
        "outer:after",
        "__end__",
    )
    assert collapse(graph, ["outer:inner"]).nodes == ("__start__", "outer", "__end__")
    check_drawing(collapse(graph, ["outer", "outer:inner"]))
