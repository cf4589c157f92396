"""`agent-tui` with no flags: the app starts its own agent server, and stops it on exit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, LoadingIndicator, Static

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.processes import group_gone, pids_running, process_gone
from tests.support.projects import add_endless_dependency, copy_weather_project, tiny_config
from tests.support.waiting import WaitFor


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
        assert not process_gone(pid)
        await pilot.press("ctrl+q")

    assert not server.is_running
    assert process_gone(pid)


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


async def test_quitting_while_the_environment_builds_stops_uv(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = copy_weather_project(tmp_path)
    add_endless_dependency(config)  # uv stays busy until it is stopped
    home = tmp_path / "home"
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENT_TUI_HOME", str(home))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, StartupScreen)
            await wait_for(
                pilot,
                lambda: bool(pids_running("pip install", str(home))),
                timeout=90,
                workers=False,
                what="uv installing the project's dependencies",
            )
            [uv] = pids_running("pip install", str(home))
            assert "Preparing the environment" in str(screen.query_one("#heading", Static).render())
            started = time.monotonic()
            await pilot.press("ctrl+q")
    assert time.monotonic() - started < 20, "quitting waited for the build"
    deadline = time.monotonic() + 10
    while not (process_gone(uv) and group_gone(uv)):  # killed at once: reaped soon after
        assert time.monotonic() < deadline, "uv (or its build backend) outlived the app"
        await asyncio.sleep(0.05)
    assert app.local_server is None  # nothing was started after the build stopped
