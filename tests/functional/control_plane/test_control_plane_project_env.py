"""The local control plane builds for real: a project's dependencies installed with uv.

BUILDING installs what the project's ``langgraph.json`` declares into the project's
environment (uv's lines in the revision's log as they come), imports the graphs with that
environment's interpreter, and the deployed server runs on it; after a control plane
restart the server comes back on it too. A dependency uv cannot install ends in
BUILD_FAILED with uv's words; deleting a deployment while it builds leaves no uv (or
build backend) process running. Every control plane answer is validated against the spec.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.client import NotFound
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import (
    NOOP_GRAPH,
    REVISION_ORDER,
    answers,
    checked_client,
    create_and_follow,
)
from tests.support.processes import process_gone
from tests.support.projects import HANGING_BACKEND, add_dependency, copy_weather_project


async def ask_weather(url: str, city: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=60) as http:
        thread = (await http.post("/threads", json={})).json()
        run = await http.post(
            f"/threads/{thread['thread_id']}/runs/wait",
            json={"assistant_id": "weather", "input": {"city": city}},
        )
    assert run.status_code == 200, run.text
    answer: dict[str, Any] = run.json()
    return answer


@pytest.mark.timeout(300)
async def test_a_project_with_its_own_dependency_deploys_and_runs_in_its_environment(
    tmp_path: Path,
) -> None:
    config = copy_weather_project(tmp_path)
    data = tmp_path / "cp"
    plane = LocalControlPlane(data)
    plane.start()
    try:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, seen = await create_and_follow(
                client, "weather", config, interval=0.2, timeout=240
            )
            revision_id = created.latest_revision_id
            assert revision_id is not None
            logs = (await client.revisions.logs(created.id, revision_id)).lines
            assert seen[-1] == "DEPLOYED", (seen, logs[-20:])
            assert seen == sorted(seen, key=REVISION_ORDER.index)
            # The install is in the log, before the graphs were imported with its result.
            installed = [i for i, line in enumerate(logs) if "tinyweather" in line]
            imported = [i for i, line in enumerate(logs) if line.startswith("graph weather: ok")]
            assert installed and imported and installed[0] < imported[0], logs
            deployment = await client.deployments.get(created.id)
            assert deployment.status == "READY" and deployment.url is not None
            # `tinyweather` is only in the project's environment: the server runs on it.
            assert (await ask_weather(deployment.url, "Oslo"))["answer"] == "sunny in Oslo"
        plane.stop()

        # After a restart the server comes back on the project's environment too.
        plane = LocalControlPlane(data)
        plane.start()
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            again = await client.deployments.get(created.id)
            for _ in range(600):  # the restart runs in the background
                again = await client.deployments.get(created.id)
                if answers(again.url):
                    break
                await asyncio.sleep(0.1)
            assert again.url is not None, again.status
            assert (await ask_weather(again.url, "Bergen"))["answer"] == "sunny in Bergen"
            logs = (await client.revisions.logs(created.id, revision_id)).lines
            assert any(line.startswith("restarted at") for line in logs)
    finally:
        plane.stop()


@pytest.mark.timeout(180)
async def test_a_dependency_that_cannot_be_installed_ends_in_build_failed_with_uvs_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")  # uv must not reach for the network in a test
    config = copy_weather_project(tmp_path)
    add_dependency(config, "agent-tui-no-such-package-xyz==0.0.1")
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, statuses = await create_and_follow(
                client, "no-such-package", config, interval=0.2, timeout=150
            )
            assert created.latest_revision_id is not None
            assert statuses[-1] == "BUILD_FAILED", statuses
            logs = (await client.revisions.logs(created.id, created.latest_revision_id)).lines
            # uv's own message names the package; the reason closes the log; no traceback.
            assert any("agent-tui-no-such-package-xyz" in line for line in logs), logs
            assert logs[-1] == "build failed: uv could not install the project's dependencies"
            assert not any("Traceback" in line for line in logs), logs
            # The graphs were not imported: the build stopped at the install.
            assert not any(line.startswith("graph weather") for line in logs), logs
            deployment = await client.deployments.get(created.id)
            assert deployment.active_revision_id is None and deployment.url is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.timeout(180)
async def test_deleting_a_deployment_while_it_builds_stops_uv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")
    project = tmp_path / "project"
    package = project / "hangs"
    package.mkdir(parents=True)
    pid_file = tmp_path / "backend.pid"
    (package / "hanging_backend.py").write_text(HANGING_BACKEND.format(pid_file=str(pid_file)))
    (package / "pyproject.toml").write_text(
        '[project]\nname = "hangs"\nversion = "0.1.0"\n\n'
        '[build-system]\nrequires = []\nbuild-backend = "hanging_backend"\nbackend-path = ["."]\n'
    )
    (project / "graph.py").write_text(NOOP_GRAPH)
    config = project / "langgraph.json"
    config.write_text(
        json.dumps({"dependencies": [".", "./hangs"], "graphs": {"agent": "./graph.py:graph"}})
    )
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created = await client.deployments.create(
                "hangs", source_revision_config={"langgraph_config_path": str(config)}
            )
            revision_id = created.latest_revision_id
            assert revision_id is not None
            for _ in range(1200):  # until uv runs the package's build backend
                if pid_file.is_file() and pid_file.read_text():
                    break
                revision = await client.revisions.get(created.id, revision_id)
                assert revision.status in REVISION_ORDER[:3], revision.status
                await asyncio.sleep(0.1)
            backend, uv = (int(pid) for pid in pid_file.read_text().split())
            assert not process_gone(backend) and not process_gone(uv)
            # While uv works, the log already tells what the build is doing.
            revision = await client.revisions.get(created.id, revision_id)
            assert revision.status == "BUILDING"
            logs = (await client.revisions.logs(created.id, revision_id)).lines
            assert "resolving the project's dependencies" in logs, logs

            await client.deployments.delete(created.id)
            for _ in range(600):  # SIGKILL takes effect when each process next runs
                if process_gone(backend) and process_gone(uv):
                    break
                await asyncio.sleep(0.05)
            assert process_gone(backend), "the build backend uv started is still running"
            assert process_gone(uv), "uv is still running"
            with pytest.raises(NotFound):
                await client.deployments.get(created.id)
