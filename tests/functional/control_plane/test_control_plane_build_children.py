"""A revision's build never outlives what it was for.

The graph check (and what a graph starts while importing) once ran on after the
deployment was deleted, after the control plane stopped (the app quitting), and after
``control-plane serve`` was stopped with SIGTERM or SIGKILL: forever, for an import that
hangs. Here a graph's import starts a helper process and hangs; whatever ends the
build, neither process may be left running. The uv environment build is held to the
same, through a build backend that never finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from agent_tui.client import ControlPlaneClient, NotFound
from agent_tui.local.control_plane import LocalControlPlane, build_children
from agent_tui.local.control_plane.auth import KEY_ENV
from tests.support.control_plane import REVISION_ORDER, checked_client
from tests.support.processes import process_gone
from tests.support.projects import HANGING_BACKEND

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

# Imported by the graph check: starts a helper, says both pids, then never returns.
HANGING_GRAPH = """
import os
import subprocess
import time
from pathlib import Path

helper = subprocess.Popen(["sleep", "3600"])
pid_file = Path({pid_file!r})
pid_file.with_suffix(".tmp").write_text(f"{{os.getpid()}} {{helper.pid}}")
pid_file.with_suffix(".tmp").replace(pid_file)
time.sleep(3600)  # hangs here
graph = None
"""


def hanging_project(folder: Path, what: str) -> tuple[Path, Path]:
    """A project whose build hangs in ``what``: its ``langgraph.json`` and the pid file
    the hanging processes write (two pids)."""
    folder.mkdir(parents=True)
    pid_file = folder / "pids"
    if what == "graph import":
        (folder / "graph.py").write_text(HANGING_GRAPH.format(pid_file=str(pid_file)))
        dependencies: list[str] = []
    else:
        package = folder / "hangs"
        package.mkdir()
        (package / "hanging_backend.py").write_text(HANGING_BACKEND.format(pid_file=str(pid_file)))
        (package / "pyproject.toml").write_text(
            '[project]\nname = "hangs"\nversion = "0.1.0"\n\n[build-system]\nrequires = []\n'
            'build-backend = "hanging_backend"\nbackend-path = ["."]\n'
        )
        (folder / "graph.py").write_text("graph = None\n")
        dependencies = ["./hangs"]
    config = folder / "langgraph.json"
    config.write_text(
        json.dumps({"dependencies": dependencies, "graphs": {"agent": "./graph.py:graph"}})
    )
    return config, pid_file


def read_pids(pid_file: Path) -> list[int]:
    """The two pids once both are written (none before)."""
    text = pid_file.read_text() if pid_file.is_file() else ""
    return [int(pid) for pid in text.split()] if len(text.split()) == 2 else []


async def hanging_pids(
    client: ControlPlaneClient, config: Path, pid_file: Path
) -> tuple[str, list[int]]:
    """Create a deployment of ``config``; once its build hangs: its id and the two pids."""
    created = await client.deployments.create(
        "hangs", source_revision_config={"langgraph_config_path": str(config)}
    )
    assert created.latest_revision_id is not None
    for _ in range(1800):  # until the hanging step runs (uv may resolve first)
        if pids := read_pids(pid_file):
            break
        revision = await client.revisions.get(created.id, created.latest_revision_id)
        assert revision.status in REVISION_ORDER[:3], revision.status
        await asyncio.sleep(0.1)
    assert pids, "the build never reached its hanging step"
    assert not any(process_gone(pid) for pid in pids)
    revision = await client.revisions.get(created.id, created.latest_revision_id)
    assert revision.status == "BUILDING"
    return created.id, pids


async def assert_all_gone(pids: list[int], what: str) -> None:
    for _ in range(600):  # a killed process is gone once it next runs
        if all(process_gone(pid) for pid in pids):
            return
        await asyncio.sleep(0.05)
    running = [pid for pid in pids if not process_gone(pid)]
    raise AssertionError(f"{what}: processes {running} of the build still run")


@pytest.fixture(autouse=True)
def offline_uv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")  # the hanging package needs nothing from an index


@pytest.mark.timeout(120)
async def test_deleting_during_the_graph_check_stops_it_and_what_it_started(
    tmp_path: Path,
) -> None:
    config, pid_file = hanging_project(tmp_path / "project", "graph import")
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            deployment_id, pids = await hanging_pids(client, config, pid_file)
            await client.deployments.delete(deployment_id)
            await assert_all_gone(pids, "after the delete")
            with pytest.raises(NotFound):
                await client.deployments.get(deployment_id)


@pytest.mark.timeout(120)
async def test_stopping_the_control_plane_stops_the_build(tmp_path: Path) -> None:
    # What the app does when it quits.
    config, pid_file = hanging_project(tmp_path / "project", "graph import")
    plane = LocalControlPlane(tmp_path / "cp")
    plane.start()
    try:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            _, pids = await hanging_pids(client, config, pid_file)
    finally:
        await asyncio.to_thread(plane.stop)
    await assert_all_gone(pids, "after the control plane stopped")


@pytest.mark.timeout(120)
async def test_an_import_that_hangs_fails_the_build_at_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_children, "BUILD_TIMEOUT", 3.0)
    config, pid_file = hanging_project(tmp_path / "project", "graph import")
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            deployment_id, pids = await hanging_pids(client, config, pid_file)
            revision_id = (await client.deployments.get(deployment_id)).latest_revision_id
            assert revision_id is not None
            statuses = [
                r.status
                async for r in client.wait_for_revision(
                    deployment_id, revision_id, interval=0.1, timeout=60
                )
            ]
            assert statuses[-1] == "BUILD_FAILED"
            logs = (await client.revisions.logs(deployment_id, revision_id)).lines
            text = "\n".join(logs)
            assert "importing took over 3 s" in text, logs
            assert "time.sleep(3600)  # hangs here" in text, logs  # where it hung
            await assert_all_gone(pids, "after the time limit")


@asynccontextmanager
async def served(tmp_path: Path, port: int, key: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """`agent-tui control-plane serve` in its own process, once it answers."""
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "agent_tui", "control-plane", "serve", "--port", str(port)],
        *["--data-dir", str(tmp_path / "cp")],
        env={**os.environ, KEY_ENV: key},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with httpx.AsyncClient(trust_env=False, timeout=5) as http:
            for _ in range(600):
                assert process.returncode is None, "serve stopped"
                try:
                    await http.get(f"http://127.0.0.1:{port}/v2/deployments")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("stop", "what"),
    [
        (signal.SIGTERM, "graph import"),
        (signal.SIGKILL, "graph import"),
        (signal.SIGKILL, "environment build"),
    ],
)
async def test_serve_stopped_by_a_signal_leaves_no_build_running(
    tmp_path: Path, free_port: int, stop: signal.Signals, what: str
) -> None:
    config, pid_file = hanging_project(tmp_path / "project", what)
    key = "test-key-build-children"
    async with served(tmp_path, free_port, key) as process:
        async with checked_client(f"http://127.0.0.1:{free_port}", api_key=key) as client:
            _, pids = await hanging_pids(client, config, pid_file)
        process.send_signal(stop)
        await asyncio.wait_for(process.wait(), 60)
    await assert_all_gone(pids, f"after {stop.name} to serve")
