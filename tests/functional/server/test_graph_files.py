"""A graph file that several graphs of ``langgraph.json`` name runs once when the server
starts (langgraph-api alone runs it once per graph: seconds with real packages, at every
start and live reload), every graph is still served, and a graph the file lacks is
still reported in langgraph-api's own words."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import httpx
import pytest

from agent_tui.local import EmbeddedAgentServer, EmbeddedServerError

AGENTS = """
from pathlib import Path

from langgraph.graph import START, MessagesState, StateGraph

with open(Path(__file__).with_name("runs.txt"), "a") as runs:
    runs.write("ran\\n")


def _step(state: MessagesState) -> dict:
    return {}


def _graph(node: str):
    return StateGraph(MessagesState).add_node(node, _step).add_edge(START, node).compile()


research = _graph("research")
write = _graph("write")


def review():
    return _graph("review")
"""


def project(tmp_path: Path, graphs: dict[str, str]) -> EmbeddedAgentServer:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "agents.py").write_text(textwrap.dedent(AGENTS))
    config = {"dependencies": ["."], "graphs": graphs}
    (folder / "langgraph.json").write_text(json.dumps(config))
    return EmbeddedAgentServer(
        folder / "langgraph.json", data_dir=tmp_path / "data", log_file=tmp_path / "server.log"
    )


def test_a_file_of_three_graphs_runs_once_and_serves_them_all(tmp_path: Path) -> None:
    graphs = {name: f"./agents.py:{name}" for name in ("research", "write", "review")}
    with project(tmp_path, graphs) as server, httpx.Client(base_url=server.url) as client:
        drawn = {}
        for name in graphs:
            drawing = client.get(f"/assistants/{name}/graph").json()
            drawn[name] = {node["id"] for node in drawing["nodes"]} - {"__start__", "__end__"}
    assert drawn == {"research": {"research"}, "write": {"write"}, "review": {"review"}}
    assert (tmp_path / "project" / "runs.txt").read_text() == "ran\n"


def test_a_graph_the_file_lacks_is_reported(tmp_path: Path) -> None:
    graphs = {"research": "./agents.py:research", "edit": "./agents.py:edit"}
    server = project(tmp_path, graphs)
    server.start()
    with pytest.raises(EmbeddedServerError) as caught:
        server.wait_until_ready(60)
    assert "Could not find graph 'edit'" in "\n".join(caught.value.log_lines)
