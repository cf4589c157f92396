"""One local start reads the project's ``langgraph.json`` once, in the app's process.

The app's session reads it and hands the `LangGraphConfig` on: to the project's
environment, the server, its prewarmed standbys and live reload. Only a reload after a
save reads it again (the save may be of ``langgraph.json`` itself); the server and the
graph check read it in their own interpreters, from the path they are given.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from agent_tui.local import project_files
from agent_tui.local.live_reload.reloader import ReloadEvent
from agent_tui.local.session import LocalSession
from agent_tui.settings.target import LocalServer
from tests.support.projects import tiny_config


class NoScreen:
    """The start-up screen's part the session talks to, without a screen."""

    def follow(self, heading: str, log_source: object = None) -> None:
        pass

    def show_build(self, text: str, done: int, total: int | None) -> None:
        pass


def spy_on_reads(monkeypatch: pytest.MonkeyPatch, config: Path) -> list[Path]:
    """The reads of ``config`` in this process from now on (every project file is read
    through `project_files.read_project_file`)."""
    reads: list[Path] = []
    real = project_files.read_project_file

    def spy(path: Path, limit: int = project_files.MAX_PROJECT_FILE) -> bytes:
        if Path(path).resolve() == config.resolve():
            reads.append(Path(path))
        return real(path, limit)

    monkeypatch.setattr(project_files, "read_project_file", spy)
    return reads


def wait_until(ready: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"not {what} after {timeout:g} s"
        time.sleep(0.05)  # threads of the session do it: nothing to await


def test_a_local_start_with_live_reload_reads_langgraph_json_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    config = tiny_config(tmp_path / "project")
    reads = spy_on_reads(monkeypatch, config)
    events: list[ReloadEvent] = []
    session = LocalSession(
        on_loop=lambda function, *args: function(*args),
        on_reload=events.append,
        on_status=lambda text: None,
        reload=True,
    )
    try:
        url = asyncio.run(session.url(LocalServer(config, tmp_path / "data"), NoScreen()))
        assert httpx.get(f"{url}/ok", trust_env=False).status_code == 200
        server = session.server
        assert server is not None and session.live_reload is not None
        # Seconds in, live reload starts the next reload's graph check and server ahead
        # of time, for the config it was handed.
        wait_until(lambda: server.standby_pid is not None, "prewarmed")
        assert len(reads) == 1, f"read {len(reads)} times in one start"

        # A save of langgraph.json reloads the server: that reads it once more.
        first_standby = server.standby_pid
        config.write_text(config.read_text())
        wait_until(lambda: any(event.kind == "reloaded" for event in events), "reloaded")
        wait_until(lambda: server.standby_pid not in (None, first_standby), "prewarmed again")
        assert httpx.get(f"{url}/ok", trust_env=False).status_code == 200
        assert len(reads) == 2, f"read {len(reads)} times after a reload"
    finally:
        session.stop()
