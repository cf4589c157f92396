"""Real deploys on the local control plane: the seed's flow end to end.

create → poll the latest revision to DEPLOYED → its URL answers and lists the graphs →
patch with a secret and a new config → the new revision deploys and the graph sees the
secret → restart keeps it → delete stops the server → 404. Plus a broken
``langgraph.json`` ending in BUILD_FAILED with the reason in the logs. Every control
plane answer is validated against the spec.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from agent_tui.client import NotFound
from agent_tui.client.tls import loopback_tls_context
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import (
    REVISION_ORDER,
    checked_client,
    create_and_follow,
    follow,
    no_start_project,
)
from tests.support.paths import GRAPHS_CONFIG

ENV_GRAPH = """
import os
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    secret: str


def read(state: State) -> State:
    return {"secret": os.environ.get("DEPLOY_SECRET", "<unset>")}


builder = StateGraph(State)
builder.add_node("read", read)
builder.add_edge(START, "read")
builder.add_edge("read", END)
graph = builder.compile()
"""


def _graph_ids(url: str) -> set[str]:
    with httpx.Client(base_url=url, trust_env=False, timeout=10) as http:
        assert http.get("/ok").status_code == 200
        found = http.post("/assistants/search", json={"limit": 100}).json()
    return {a["graph_id"] for a in found}


def _server_down(url: str) -> bool:
    try:
        httpx.get(f"{url}/ok", timeout=2, trust_env=False, verify=loopback_tls_context())
    except httpx.TransportError:
        return True
    return False


@pytest.mark.timeout(180)
async def test_deploy_patch_restart_delete(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "env_graph.py").write_text(ENV_GRAPH)
    (project / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": {"env_echo": "./env_graph.py:graph"}})
    )
    data = tmp_path / "cp"
    plane = LocalControlPlane(data)
    plane.start()
    try:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, seen = await create_and_follow(
                client, "real", GRAPHS_CONFIG, interval=0.2, timeout=90
            )
            assert created.latest_revision_id is not None
            assert seen[-1] == "DEPLOYED", seen
            assert seen == sorted(seen, key=REVISION_ORDER.index)
            deployed = await client.deployments.get(created.id)
            assert deployed.status == "READY"
            assert deployed.active_revision_id == created.latest_revision_id
            assert deployed.url is not None and {"counter", "chat"} <= _graph_ids(deployed.url)

            patched = await client.deployments.patch(
                created.id,
                secrets=[{"name": "DEPLOY_SECRET", "value": "open sesame"}],
                source_revision_config={"langgraph_config_path": str(project / "langgraph.json")},
            )
            assert patched.latest_revision_id not in (None, created.latest_revision_id)
            statuses = await follow(
                client, created.id, patched.latest_revision_id, interval=0.2, timeout=90
            )
            assert statuses[-1] == "DEPLOYED"
            updated = await client.deployments.get(created.id)
            assert updated.active_revision_id == patched.latest_revision_id
            assert updated.url is not None and "env_echo" in _graph_ids(updated.url)
            async with httpx.AsyncClient(base_url=updated.url, trust_env=False, timeout=30) as h:
                run = await h.post("/runs/wait", json={"assistant_id": "env_echo", "input": {}})
            assert run.json() == {"secret": "open sesame"}
        plane.stop()
        assert _server_down(updated.url)

        plane = LocalControlPlane(data)
        plane.start()
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            again = await client.deployments.get(created.id)
            assert again.active_revision_id == patched.latest_revision_id
            for _ in range(300):  # the restart runs in the background
                again = await client.deployments.get(created.id)
                if again.url and not _server_down(again.url):
                    break
                await asyncio.sleep(0.1)
            assert again.url is not None and "env_echo" in _graph_ids(again.url)
            assert again.url == updated.url  # its old port was free: a saved URL still works
            await client.deployments.delete(created.id)
            assert _server_down(again.url)
            with pytest.raises(NotFound):
                await client.deployments.get(created.id)
    finally:
        plane.stop()


async def test_a_broken_config_ends_in_build_failed_with_the_reason(tmp_path: Path) -> None:
    broken = tmp_path / "langgraph.json"
    broken.write_text('{"graphs": {"agent": "./missing.py:graph"}}')
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, statuses = await create_and_follow(
                client, "broken", broken, interval=0.1, timeout=60
            )
            assert created.latest_revision_id is not None
            assert statuses[-1] == "BUILD_FAILED"
            logs = await client.revisions.logs(created.id, created.latest_revision_id)
            assert any("missing.py" in line and "cannot import" in line for line in logs.lines)
            deployment = await client.deployments.get(created.id)
            assert deployment.active_revision_id is None and deployment.url is None


async def test_a_server_that_cannot_start_ends_in_deploy_failed(tmp_path: Path) -> None:
    config = no_start_project(tmp_path)
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, statuses = await create_and_follow(
                client, "no-start", config, interval=0.1, timeout=90
            )
            assert created.latest_revision_id is not None
            assert statuses[-1] == "DEPLOY_FAILED", statuses
            logs = await client.revisions.logs(created.id, created.latest_revision_id)
            assert any(line.startswith("deploy failed:") for line in logs.lines)
            assert any("no_auth" in line for line in logs.lines), logs.lines[-10:]
