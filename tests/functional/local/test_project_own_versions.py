"""A project's environment holds the versions the project's own resolution picks, held only
by what the server needs: an older httpx or cryptography than agent-tui's own, an older
supported langgraph-api (which then runs), and a plain message for one outside the range.

Built for real with uv (its cache already holds these packages: agent-tui's own
environment, and the suite's environment of the oldest supported langgraph-api).
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import httpx
import pytest

from agent_tui.local import EmbeddedAgentServer, load_langgraph_config
from agent_tui.local.project_env.environment import EnvironmentBuildError, ensure_environment
from agent_tui.local.server_versions import SERIES, supported_words
from tests.support.api_envs import OLDEST, TOO_OLD

GRAPH = """
from importlib import metadata
from typing import TypedDict

import cryptography  # imported as the project's code would: its own version
import httpx
from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    versions: dict


def report(state: State) -> State:
    names = ("httpx", "cryptography", "langgraph-api")
    return {"versions": {name: metadata.version(name) for name in names}}


graph = StateGraph(State).add_node("report", report)
graph = graph.add_edge(START, "report").add_edge("report", END).compile()
"""


def project(folder: Path, dependencies: list[str]) -> Path:
    """A project as templates make them: ``langgraph.json`` naming ``"."``, whose
    ``pyproject.toml`` lists what it needs."""
    folder.mkdir()
    (folder / "graph.py").write_text(GRAPH)
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "older-stack"\nversion = "0.1.0"\n'
        f"dependencies = {json.dumps(dependencies)}\n"
    )
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"dependencies": ["."], "graphs": {"report": "./graph.py:graph"}}))
    return config


async def serve_and_report(config: Path, python: str, data: Path) -> tuple[dict[str, str], str]:
    """The graph's answer (the versions it imported) and ``/info``'s version."""
    server = EmbeddedAgentServer(config, data_dir=data, log_file=data / "server.log", python=python)
    async with server, httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        answer = await http.post("/runs/wait", json={"assistant_id": "report", "input": {}})
        assert answer.status_code == 200, answer.text
        info = (await http.get("/info")).json()
    return answer.json()["versions"], info["version"]


async def test_a_project_needing_older_httpx_and_cryptography_builds_and_serves(
    tmp_path: Path,
) -> None:
    # What agent-tui's own environment holds is newer: a project held to it could not
    # be built (uv: "your requirements are unsatisfiable").
    own_httpx = metadata.version("httpx")
    own_cryptography = int(metadata.version("cryptography").split(".")[0])
    assert own_httpx.startswith("0.29") and own_cryptography >= 51
    config = project(tmp_path / "older", ["httpx<0.29", "cryptography<51"])
    python = ensure_environment(load_langgraph_config(config), env_dir=tmp_path / "env")

    versions, _ = await serve_and_report(config, python, tmp_path / "data")
    assert versions["httpx"].startswith("0.28")
    assert int(versions["cryptography"].split(".")[0]) < 51
    assert versions["langgraph-api"].rsplit(".", 1)[0] in SERIES  # the newest of the range


async def test_a_project_pinning_an_older_supported_langgraph_api_runs_it(
    tmp_path: Path,
) -> None:
    assert metadata.version("langgraph-api") != OLDEST.api
    config = project(tmp_path / "pinned", [f"langgraph-api=={OLDEST.api}"])
    python = ensure_environment(load_langgraph_config(config), env_dir=tmp_path / "env")

    versions, running = await serve_and_report(config, python, tmp_path / "data")
    assert running == versions["langgraph-api"] == OLDEST.api


def test_a_langgraph_api_outside_the_range_is_named_with_the_supported_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")  # the conflict is in the requirements alone
    config = project(tmp_path / "too-old", [f"langgraph-api=={TOO_OLD.api}"])
    with pytest.raises(EnvironmentBuildError) as failure:
        ensure_environment(load_langgraph_config(config), env_dir=tmp_path / "env")
    assert failure.value.reason == (
        "the project's dependencies conflict with what agent-tui's local server needs: "
        f"it runs {supported_words()}"
    )
    assert f"langgraph-api=={TOO_OLD.api}" in " ".join(failure.value.lines)  # uv's words
