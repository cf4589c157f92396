"""The graph check of a reload starts at a burst's first change, during the quiet time that
ends the burst: what it reports is still the project as the burst left it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.live_reload.graph_check import CheckStandby, check_graphs
from tests.functional.local.test_live_reload import (
    Events,
    forecast,
    live_reloaded,
    prewarmed_pids,
    weather_server,
)
from tests.support.processes import gone_within

NOTE_PID = "import os\n\nopen(os.environ['PID_FILE'], 'w').write(str(os.getpid()))\n"
GRAPH = """
from typing import TypedDict

from langgraph.graph import START, StateGraph


class State(TypedDict):
    n: int


graph = StateGraph(State).add_node("inc", lambda s: {"n": 1}).add_edge(START, "inc").compile()
"""


def checked_by(pid_file: Path, timeout: float = 60) -> int:
    """The process id the project's check wrote, once it has."""
    deadline = time.monotonic() + timeout
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, "the check did not run"
        time.sleep(0.05)  # another process writes it: nothing to wait on
    return int(pid_file.read_text())


def test_a_check_started_early_serves_only_its_own_launch_and_can_be_dropped(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    agent = project / "agent.py"
    agent.write_text(NOTE_PID + GRAPH)
    config = project / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"g": "./agent.py:graph"}}))
    pid_file = tmp_path / "checked-by"
    env = {"PID_FILE": str(pid_file)}
    standby = CheckStandby()
    try:
        # Started early: it runs at once, and the check asked for later is that run.
        standby.prepare(config, env=env)
        early = standby.pid
        assert early is not None and standby.start_early()
        assert checked_by(pid_file) == early
        assert check_graphs(config, env=env, standby=standby).ok
        assert gone_within([early], 10)

        # Dropped (a file changed after it started): killed; the check runs again.
        pid_file.unlink()
        standby.prepare(config, env=env)
        dropped = standby.pid
        assert dropped is not None and standby.start_early()
        standby.drop_early()
        assert gone_within([dropped], 10)
        agent.write_text(NOTE_PID + GRAPH.replace("graph = ", "graph = undefined_name or "))
        check = check_graphs(config, env=env, standby=standby)
        assert not check.ok and "undefined_name" in check.problems[0].message
        assert checked_by(pid_file) != dropped

        # Started for other arguments: not used, and not left running.
        pid_file.unlink()
        standby.prepare(config, env={**env, "OTHER": "1"})
        other = standby.pid
        assert other is not None and standby.start_early()
        assert not check_graphs(config, env=env, standby=standby).ok
        assert gone_within([other], 10)
        assert checked_by(pid_file) != other
    finally:
        standby.close()


@pytest.fixture
def slow_burst(tmp_path: Path) -> Iterator[tuple[EmbeddedAgentServer, Events]]:
    """A live reloaded server whose bursts end after 1.5 s without a change, so two
    writes half a second apart are one burst however loaded the machine."""
    server, events = weather_server(tmp_path), Events()
    with live_reloaded(server, events, prewarm_delay=0, debounce_ms=1500):
        yield server, events


def test_a_burst_is_judged_by_how_it_left_the_files(
    slow_burst: tuple[EmbeddedAgentServer, Events],
) -> None:
    server, events = slow_burst
    url = server.url
    folder = server.config_path.parent
    agent = folder / "agent.py"
    good = agent.read_text()
    broken = good.replace("builder = ", "oops = undefined_name\nbuilder = ", 1)
    weather = folder / "packages" / "tinyweather" / "src" / "tinyweather" / "__init__.py"

    # Broken, then fixed with a change, in one burst: the check that started at the
    # broken save does not count; the change is served and no failure is shown.
    prewarmed_pids(server)
    agent.write_text(broken)
    time.sleep(0.5)
    agent.write_text(good)
    weather.write_text(weather.read_text().replace("sunny in", "rainy in"))
    events.wait("reloaded", 0)
    assert [event.kind for event in events.seen] == ["reloading", "reloaded"]
    assert forecast(url) == "rainy in Oslo"

    # A change, then broken, in one burst: the failure is shown with its line, and the
    # running code keeps serving.
    prewarmed_pids(server)
    mark = len(events.seen)
    weather.write_text(weather.read_text().replace("rainy in", "foggy in"))
    time.sleep(0.5)
    agent.write_text(broken)
    failed = events.wait("failed", mark)
    assert "undefined_name" in failed.message and failed.problems[0].line is not None
    assert server.is_running and forecast(url) == "rainy in Oslo"
