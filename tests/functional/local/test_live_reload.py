"""Live reload on a real server: an edit reloads it with threads kept; a broken edit keeps
the running code and says where it broke; fixing it recovers without a restart."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local import EmbeddedAgentServer, load_langgraph_config
from agent_tui.local.live_reload.record import read_imports
from agent_tui.local.live_reload.reloader import LiveReload, ReloadEvent
from agent_tui.local.project_env.environment import ensure_environment
from tests.support.paths import GRAPHS
from tests.support.processes import gone_within, pids_running, process_gone, servers_forked
from tests.support.projects import copy_weather_project


class Events:
    """Reload events as they come, with a way to wait for the next one of a kind."""

    def __init__(self) -> None:
        self.seen: list[ReloadEvent] = []
        self._changed = threading.Condition()

    def __call__(self, event: ReloadEvent) -> None:
        with self._changed:
            self.seen.append(event)
            self._changed.notify_all()

    def wait(self, kind: str, after: int, timeout: float = 90.0) -> ReloadEvent:
        with self._changed:
            found = self._changed.wait_for(
                lambda: any(e.kind == kind for e in self.seen[after:]), timeout
            )
        assert found, f"no {kind!r} event; seen: {[(e.kind, e.message) for e in self.seen]}"
        return next(e for e in self.seen[after:] if e.kind == kind)


@pytest.fixture(autouse=True)
def _started_as_the_app_starts_them() -> Iterator[None]:
    # These tests find the prewarmed processes by their command lines, as `ps` shows a
    # user's: a server or standby forked for the tests (`tests/conftest.py`) shows the
    # forkserver's instead.
    with servers_forked(False):
        yield


def weather_server(tmp_path: Path) -> EmbeddedAgentServer:
    """A copy of the weather project served with its own environment, its listener held
    (as the app and `serve` run it under live reload)."""
    config = copy_weather_project(tmp_path)
    # Where live reload finds it too, as in the app: its reloads keep the same interpreter.
    python = ensure_environment(load_langgraph_config(config))
    return EmbeddedAgentServer(
        config,
        data_dir=tmp_path / "data",
        log_file=tmp_path / "server.log",
        python=python,
        hold_listener=True,
    )


@contextlib.contextmanager
def live_reloaded(
    server: EmbeddedAgentServer, events: Events, **options: Any
) -> Iterator[LiveReload]:
    """`server` started under live reload, ready; the reload stopped before the server."""
    with server:
        reload = LiveReload(server, events, **options)
        reload.start()
        try:
            assert reload.wait_ready()
            yield reload
        finally:
            reload.stop()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[tuple[EmbeddedAgentServer, Events, LiveReload]]:
    server, events = weather_server(tmp_path), Events()
    with live_reloaded(server, events) as reload:
        yield server, events, reload


def forecast(url: str, thread_id: str | None = None) -> str:
    path = f"/threads/{thread_id}/runs/wait" if thread_id else "/runs/wait"
    answer = httpx.post(
        url + path, json={"assistant_id": "weather", "input": {"city": "Oslo"}}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["answer"])


def test_edit_break_and_fix(project: tuple[EmbeddedAgentServer, Events, LiveReload]) -> None:
    server, events, _reload = project
    url, pid = server.url, server.pid
    thread = httpx.post(url + "/threads", json={}, timeout=30).json()["thread_id"]
    assert forecast(url, thread) == "sunny in Oslo"

    # 1. An edit to the project's package: reloaded, new behaviour, same URL, thread kept.
    package = server.config_path.parent / "packages" / "tinyweather" / "src" / "tinyweather"
    module = package / "__init__.py"
    module.write_text(module.read_text().replace("sunny in", "rainy in"))
    reloading = events.wait("reloading", 0)
    assert Path("packages/tinyweather/src/tinyweather/__init__.py") in reloading.files
    events.wait("reloaded", 0)
    assert server.url == url and server.pid != pid
    assert forecast(url) == "rainy in Oslo"
    history = httpx.post(f"{url}/threads/{thread}/history", json={"limit": 10}, timeout=30)
    assert history.status_code == 200 and history.json(), "the thread's history was lost"

    # 2. A broken edit: the error names the file and line; the running code keeps serving.
    agent = server.config_path.parent / "agent.py"
    good = agent.read_text()
    lines = good.splitlines()
    broken_line = next(i for i, line in enumerate(lines, 1) if line.startswith("builder = "))
    lines.insert(broken_line - 1, "oops = undefined_name")
    mark = len(events.seen)
    agent.write_text("\n".join(lines) + "\n")
    failed = events.wait("failed", mark)
    problem = failed.problems[0]
    assert problem.file is not None and problem.file.name == "agent.py"
    assert problem.line == broken_line
    assert "NameError" in problem.message and "undefined_name" in problem.message
    assert server.is_running
    assert forecast(url) == "rainy in Oslo"

    # 3. Fixed: recovered without a restart of anything but the server.
    mark = len(events.seen)
    agent.write_text(good)
    events.wait("reloaded", mark)
    answer = httpx.post(
        url + "/runs/wait", json={"assistant_id": "weather", "input": {}}, timeout=60
    ).json()
    assert answer["answer"] == "rainy in Paris"
    thread_again = httpx.get(f"{url}/threads/{thread}", timeout=30)
    assert thread_again.status_code == 200


def test_a_dependency_change_rebuilds_the_environment_then_reloads(
    project: tuple[EmbeddedAgentServer, Events, LiveReload],
) -> None:
    server, events, _reload = project
    prewarmed = prewarmed_pids(server)
    package = server.config_path.parent / "packages" / "tinyweather"
    pyproject = package / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.2.0"'))
    rebuilding = events.wait("reloading", 0)
    assert "rebuilding the project's environment" in rebuilding.message
    events.wait("reloaded", 0)
    version = httpx.post(
        server.url + "/runs/wait",
        json={"assistant_id": "weather", "input": {"city": "Oslo"}},
        timeout=60,
    )
    assert version.status_code == 200 and version.json()["answer"] == "sunny in Oslo"
    # The standbys had imported the old packages: not used, not left running.
    assert server.pid not in prewarmed and gone_within(prewarmed, 10)
    installed = subprocess.run(
        [server.python, "-c", "import importlib.metadata as m; print(m.version('tinyweather'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert installed == "0.2.0"


def holds_standby(server: EmbeddedAgentServer, pid: int, timeout: float = 30) -> bool:
    """True once ``server`` holds ``pid`` as its standby. The process runs (and is found
    by `prewarmed_pids`) before `Popen` returns it to the thread that starts it: on a
    loaded machine, for a while."""
    deadline = time.monotonic() + timeout
    while server.standby_pid != pid:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)  # another thread records it: nothing to wait on
    return True


def prewarmed_pids(server: EmbeddedAgentServer, timeout: float = 30) -> list[int]:
    """The waiting graph check and server (`standby`) of ``server``'s project, once both run."""
    config = str(server.config_path)
    deadline = time.monotonic() + timeout
    while True:
        checks = pids_running("build_check", "--standby", config)
        # The one serving may have been a standby: its command line still says so.
        servers = [
            pid
            for pid in pids_running("agent_tui.server.main", "--standby", config)
            if pid != server.pid
        ]
        if len(checks) == 1 and len(servers) == 1:
            return [*checks, *servers]
        assert time.monotonic() < deadline, f"standbys: checks {checks}, servers {servers}"
        time.sleep(0.1)  # another thread starts them: nothing to wait on


def test_a_reload_runs_on_the_prewarmed_processes_and_stop_ends_them(tmp_path: Path) -> None:
    # Set up here, not in a fixture: pytest changes the environment between the two
    # (PYTEST_CURRENT_TEST), and a standby only serves a launch with the same environment.
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(GRAPHS / "counter.py", folder / "agent.py")
    config = folder / "langgraph.json"
    # LangGraph reads some of the config's env at import: a standby has it from the start.
    settings = {"graphs": {"counter": "./agent.py:graph"}, "env": {"AGENT_GREETING": "hello"}}
    config.write_text(json.dumps(settings))
    server = EmbeddedAgentServer(config, data_dir=tmp_path / "data", hold_listener=True)
    events = Events()
    with live_reloaded(server, events):
        check, standby = prewarmed_pids(server)
        assert holds_standby(server, standby), f"holds {server.standby_pid}"
        assert b"AGENT_GREETING=hello\0" in Path(f"/proc/{standby}/environ").read_bytes()
        thread = httpx.post(server.url + "/threads", json={}, timeout=30).json()["thread_id"]
        (folder / "agent.py").write_text((folder / "agent.py").read_text() + "# edited\n")
        events.wait("reloaded", 0)
        # The prewarmed server now serves; the prewarmed check ran the check and ended.
        assert server.pid == standby and process_gone(check)
        # What the graphs imported is kept for the next standbys (and the next start).
        assert "langgraph.graph" in read_imports(tmp_path / "data")
        answer = httpx.post(
            server.url + "/runs/wait",
            json={"assistant_id": "counter", "input": {"n": 1}},
            timeout=60,
        )
        assert answer.status_code == 200 and answer.json()["n"] == 4
        kept = httpx.get(f"{server.url}/threads/{thread}", timeout=30)
        assert kept.status_code == 200, "the thread was lost"
        # New ones wait for the next edit.
        check, standby = prewarmed_pids(server)
        assert holds_standby(server, standby), f"holds {server.standby_pid}"
        # The config's env changed: the server prepared with the old one is not used.
        mark = len(events.seen)
        settings["env"] = {"AGENT_GREETING": "bye"}
        config.write_text(json.dumps(settings))
        events.wait("reloaded", mark)
        assert server.pid != standby and process_gone(standby)
        # Stopping ends the ones prepared for the next edit.
        following = prewarmed_pids(server)
        assert not set(following) & {check, standby}
    assert gone_within(following, 10), "a standby outlived the stop"


RUNS = """
import os
from pathlib import Path

with open(Path(__file__).with_name("runs.txt"), "a") as runs:
    runs.write(f"{os.getpid()}\\n")
"""


@pytest.mark.parametrize("code", ["./agent.py", "agent"], ids=["file", "module"])
def test_the_prewarmed_server_runs_the_edit_once_and_a_broken_edit_never_serves(
    tmp_path: Path, code: str
) -> None:
    # Two graphs of one file, which notes each process that runs it. The waiting server
    # runs the file as the check starts: a broken edit is reported and the old code kept
    # serving, the waiting server that ran it is replaced, and the fix is what is served.
    folder = tmp_path / "project"
    folder.mkdir()
    agent = folder / "agent.py"
    good = (GRAPHS / "counter.py").read_text() + RUNS
    agent.write_text(good)
    graphs = {"counter": f"{code}:graph", "again": f"{code}:graph"}
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"dependencies": ["."], "graphs": graphs}))
    server = EmbeddedAgentServer(config, data_dir=tmp_path / "data", hold_listener=True)
    events = Events()

    def counted(graph: str) -> int:
        body = {"assistant_id": graph, "input": {"n": 1}}
        answer = httpx.post(server.url + "/runs/wait", json=body, timeout=60)
        assert answer.status_code == 200, answer.text
        return int(answer.json()["n"])

    with live_reloaded(server, events):
        _, standby = prewarmed_pids(server)
        assert holds_standby(server, standby), f"holds {server.standby_pid}"
        thread = httpx.post(server.url + "/threads", json={}, timeout=30).json()["thread_id"]
        running = server.pid

        agent.write_text(good + "\nbroken = undefined_name\n")
        failed = events.wait("failed", 0)
        assert failed.problems and "undefined_name" in failed.problems[0].message
        assert failed.problems[0].line == len((good + "\nbroken").splitlines())
        assert server.pid == running and counted("counter") == 4
        assert gone_within([standby], 30), "the server that ran the broken edit waits on"

        _, standby = prewarmed_pids(server)
        assert holds_standby(server, standby), f"holds {server.standby_pid}"
        mark = len(events.seen)
        agent.write_text(good.replace("step: int = 1", "step: int = 2"))
        events.wait("reloaded", mark)
        assert server.pid == standby
        assert counted("counter") == 6 and counted("again") == 6  # (1 + 2) * 2
        kept = httpx.get(f"{server.url}/threads/{thread}", timeout=30)
        assert kept.status_code == 200, "the thread was lost"
        # Once in the new server for both graphs (langgraph-api alone: once each).
        runs = (folder / "runs.txt").read_text().split()
        assert runs.count(str(server.pid)) == 1, runs
