"""`agent-tui` with no flags: the app starts its own agent server, and stops it on exit."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.widgets import DataTable, LoadingIndicator, Static

from agent_tui.app import AgentTuiApp
from agent_tui.screens.server_info import ServerInfoScreen
from agent_tui.screens.startup import StartupScreen
from agent_tui.target import LocalServer
from project_support import tiny_config

WaitFor = Callable[..., Awaitable[None]]  # the `wait_for` fixture of conftest.py


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_local_server_starts_with_progress_and_is_gone_after_ctrl_q(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = tiny_config(tmp_path)
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)

        # While the server starts: a spinner, the config it starts, elapsed time and status.
        await wait_for(
            pilot, lambda: app.local_server is not None, workers=False, what="the server launch"
        )
        assert startup.query_one(LoadingIndicator).display
        assert str(config) in str(startup.query_one("#heading", Static).render())
        status = startup.query_one("#status", Static)
        assert "s · " in str(status.render())
        assert status.region.height == 1  # on screen, not only rendered
        assert app.sub_title == "starting the local server…"

        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ServerInfoScreen),
            timeout=90,
            what="the info screen",
        )
        screen = app.screen
        table = screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
        assert table.get_row_at(0)[0].plain == "tiny"
        summary = str(screen.query_one("#summary", Static).render())
        assert str(config) in summary and "local" in summary

        server = app.local_server
        assert server is not None and server.pid is not None
        pid = server.pid
        assert process_exists(pid)
        await pilot.press("ctrl+q")

    assert not server.is_running
    assert not process_exists(pid)


async def test_unusable_config_shows_why_and_offers_retry(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    missing = tmp_path / "nowhere" / "langgraph.json"
    app = AgentTuiApp(LocalServer(config_path=missing, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        title = str(screen.query_one("#error-title", Static).render())
        assert title == "The local agent server did not start"
        assert str(missing) in str(screen.query_one("#error-message", Static).render())
        assert not screen.query_one(LoadingIndicator).display
        assert app.sub_title == "failed"
        assert app.local_server is None  # a config it cannot read starts nothing
        await pilot.press("ctrl+q")
    assert app.return_code == 1
