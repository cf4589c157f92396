"""The collector of the servers agent-tui starts runs in a process of its own (so its
ingestion never waits on the app's GIL, nor the app's keys on it): a real server's runs
reach the store this process reads, its key shows on no command line, and it goes away
with agent-tui, even when agent-tui is killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from agent_tui.local.trace_collector.process import CollectorProcess
from agent_tui.settings.traces import ENABLED_ENV
from agent_tui.traces.query import open_for_reading
from agent_tui.traces.store import DB_FILE
from tests.support.traces import (
    finished_trace,
    run_weather_agent,
    traced_agent_server,
    wait_until,
)


def answers(url: str) -> dict[str, object] | None:
    """The collector's ``/ok`` answer, or None when nothing listens there any more."""
    try:
        return dict(httpx.get(f"{url}/ok", timeout=5).json())
    except httpx.TransportError:
        return None


def exited(pid: int) -> bool:
    """Whether ``pid`` is gone (a zombie is: it runs nothing, holds nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_a_servers_runs_are_stored_by_a_collector_in_another_process(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    with CollectorProcess(folder) as collector:
        assert collector.url.startswith("http://127.0.0.1:")
        assert not collector.url.endswith(":2024")
        health = answers(collector.url)
        assert health is not None
        assert health["pid"] == collector.pid != os.getpid()
        if sys.platform.startswith("linux"):
            # What `ps` shows of it (and its environment): never the key.
            for part in ("cmdline", "environ"):
                shown = Path(f"/proc/{collector.pid}/{part}").read_bytes()
                assert collector.api_key.encode() not in shown, part

        with traced_agent_server(collector, tmp_path / "server") as url:
            thread_id, run_id = run_weather_agent(url, "Weather in Paris?", {})
            # Read here while the other process writes (SQLite in WAL mode).
            store = wait_until(lambda: open_for_reading(folder / DB_FILE), "the trace store")
            try:
                summary, tree = finished_trace(store, thread_id=thread_id, calls=3)
            finally:
                store.close()
        assert summary.graph_run_id == run_id
        names = [call.name for call in tree.calls()]
        assert names == ["ChatOpenAI", "lookup_weather", "ChatOpenAI"]
        pid = collector.pid
    assert pid is not None and exited(pid)
    assert answers(collector.url) is None


PARENT = textwrap.dedent(
    """
    import sys
    from agent_tui.local.trace_collector.wiring import shared_collector

    collector = shared_collector()
    print(collector.pid, collector.url, flush=True)
    sys.stdin.read()  # until the test kills it
    """
)


def test_the_collector_goes_away_when_the_app_is_killed(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    env.pop(ENABLED_ENV, None)
    app = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert app.stdout is not None
        pid_text, url = app.stdout.readline().split()
        pid = int(pid_text)
        health = answers(url)
        assert health is not None and health["pid"] == pid
        assert pid not in (app.pid, os.getpid())
        os.kill(app.pid, signal.SIGKILL)
        app.wait(30)
        wait_until(lambda: True if exited(pid) else None, "the orphaned collector to exit")
        assert answers(url) is None
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


UNTRACED_START = textwrap.dedent(
    """
    import logging
    from agent_tui.local.trace_collector.wiring import tracing_environment

    logging.basicConfig(level=logging.WARNING)
    print(tracing_environment({}), flush=True)
    """
)


def test_a_collector_that_cannot_start_leaves_the_server_untraced_and_says_why(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    # A folder where the store's file should be: the collector cannot open it.
    (home / "data" / "traces" / DB_FILE).mkdir(parents=True)
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    env.pop(ENABLED_ENV, None)
    # A new app process: this one may have its collector running already.
    app = subprocess.run(
        [sys.executable, "-c", UNTRACED_START],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert app.stdout.strip() == "{}"  # what the server's environment gets: nothing
    assert "runs are not traced" in app.stderr
    assert "cannot open the trace store" in app.stderr
