"""A save made as soon as `agent-tui serve`'s server answers is served, like any later one.

The project can only be watched once its server answers (the server reads it first); a
save made in between must not be lost: the server would keep the old code until the
next save.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from agent_tui.client.tls import loopback_tls_context
from tests.support.serve import START_TIMEOUT, Serve

GRAPH = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    version: str


def answer(state: State) -> State:
    return {"version": "VERSION"}


builder = StateGraph(State)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
"""


def _answers(url: str) -> bool:
    try:
        return (
            httpx.get(
                f"{url}/ok", timeout=2, trust_env=False, verify=loopback_tls_context()
            ).status_code
            == 200
        )
    except httpx.TransportError:
        return False


def _version(url: str) -> str:
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as http:
        answer = http.post("/runs/wait", json={"assistant_id": "agent", "input": {}})
    answer.raise_for_status()
    return str(answer.json()["version"])


@pytest.mark.timeout(180)
def test_a_save_as_soon_as_the_server_answers_is_served(tmp_path: Path, free_port: int) -> None:
    project = tmp_path / "project"
    project.mkdir()
    agent = project / "agent.py"
    agent.write_text(GRAPH.replace("VERSION", "first"))
    (project / "langgraph.json").write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}}))
    url = f"http://127.0.0.1:{free_port}"
    serve = Serve(tmp_path / "home", project, "--port", str(free_port))
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(url):  # another process's start: polled
            assert serve.process.poll() is None, serve.stderr
            assert time.monotonic() < deadline, f"the server never answered:\n{serve.stderr}"
            time.sleep(0.02)
        agent.write_text(GRAPH.replace("VERSION", "second"))  # saved the moment it answers
        assert serve.url() == url
        serve.wait_for_stderr("agent-tui serve: reloaded in", timeout=90)
        assert _version(url) == "second"
        assert serve.stop() == 0
    finally:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait(10)
