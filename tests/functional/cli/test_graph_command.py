"""`agent-tui graph` against the real server: the demo chat graph drawn, as Mermaid and
as JSON, the nested test graph with xray, and what it says for a name it does not know."""

from __future__ import annotations

import json

import pytest

from agent_tui.graph_drawing import Edge, Graph, draw
from tests.support.cli import cli
from tests.support.hostile_text import terminal_controls

# The demo chat graph, as the server answers for it (its edges in the server's order).
CHAT = Graph.of(
    ["__start__", "agent", "tools", "approve", "__end__"],
    [
        Edge("__start__", "agent"),
        Edge("agent", "__end__", conditional=True),
        Edge("agent", "approve", conditional=True),
        Edge("agent", "tools", conditional=True),
        Edge("approve", "agent"),
        Edge("tools", "agent"),
    ],
)


async def test_the_chat_graph_is_drawn_as_boxes_and_arrows(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(capsys, "graph", "chat", "--url", agent_server_url)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "│ agent │" in out and "│ tools │" in out and "│ approve │" in out
    assert lines[0].strip() == "(start)" and lines[-1].strip() == "(end)"
    assert "╎" in out  # the agent's routes are conditional
    assert out.count("▼") == 6
    assert out == draw(CHAT) + "\n"


async def test_ascii_and_compact(agent_server_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = await cli(
        capsys, "graph", "chat", "--ascii", "--compact", "--url", agent_server_url
    )
    assert code == 0
    assert out.isascii()
    assert "|agent|" in out and "v" in out and ":" in out
    assert out == draw(CHAT, compact=True, ascii=True) + "\n"


async def test_mermaid(agent_server_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = await cli(capsys, "graph", "chat", "--mermaid", "--url", agent_server_url)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "flowchart TD"
    assert '    n1["agent"]' in lines
    assert "    n1 -.-> n2" in lines  # agent to tools: conditional
    assert "    n2 --> n1" in lines  # tools back to agent


async def test_json_gives_each_node_its_box_and_each_edge_its_points(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await cli(capsys, "graph", "chat", "--json", "--url", agent_server_url)
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["width", "height", "compact", "nodes", "edges", "frames"]
    assert data["frames"] == []  # no subgraph drawn
    nodes = {node["id"]: node for node in data["nodes"]}
    assert set(nodes) == {"__start__", "agent", "tools", "approve", "__end__"}
    assert list(nodes["agent"]) == ["id", "name", "layer", "order", "x", "y", "width", "height"]
    assert nodes["agent"]["layer"] == 1 and nodes["tools"]["layer"] == 2
    loops = {(e["source"], e["target"]) for e in data["edges"] if e["loop"]}
    assert loops == {("tools", "agent"), ("approve", "agent")}
    for edge in data["edges"]:
        target = nodes[edge["target"]]
        assert edge["points"][-1][1] == target["y"] - 1


async def test_xray_draws_the_subgraph_nodes(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, flat, _ = await cli(capsys, "graph", "nested", "--url", agent_server_url)
    assert code == 0
    assert "│ chat │" in flat and "chat:agent" not in flat
    code, deep, _ = await cli(capsys, "graph", "nested", "--xray", "--url", agent_server_url)
    assert code == 0
    assert "│ chat:agent │" in deep and "│ chat:tools │" in deep and "(chat:start)" in deep
    assert "╭┈ chat ┈" in deep  # the subgraph's nodes in a frame
    code, out, _ = await cli(
        capsys, "graph", "nested", "--xray", "--json", "--url", agent_server_url
    )
    assert [frame["subgraph"] for frame in json.loads(out)["frames"]] == ["chat"]


async def test_an_unknown_name_lists_the_graphs(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(capsys, "graph", "nope", "--url", agent_server_url)
    assert code == 1 and out == ""
    assert "'nope'" in err and "chat" in err  # the server lists its graphs


async def test_mermaid_and_json_together_is_bad_usage(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = await cli(
        capsys, "graph", "chat", "--mermaid", "--json", "--url", agent_server_url
    )
    assert code == 2 and "not allowed with" in err


@pytest.mark.parametrize("form", [[], ["--ascii"], ["--mermaid"], ["--json"]])
async def test_a_hostile_node_name_reaches_the_terminal_inert(
    form: list[str], agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(capsys, "graph", "hostile", *form, "--url", agent_server_url)
    assert (code, err) == (0, "")
    assert "node-hostile" in out
    assert terminal_controls(out) == []


async def test_expand_opens_only_the_subgraphs_named(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await cli(
        capsys, "graph", "nested", "--expand", "chat", "--url", agent_server_url
    )
    assert code == 0
    assert "│ chat:agent │" in out and "╭┈ chat ┈" in out
    code, out, err = await cli(
        capsys, "graph", "nested", "--expand", "nope", "--url", agent_server_url
    )
    assert code == 2 and out == ""
    assert "no subgraph nope (its subgraphs: chat)" in err
