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
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor, screen_shown


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

        await screen_shown(pilot, ServerInfoScreen, timeout=90, what="the info screen")
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


async def test_home_at_80_by_24_shows_the_graphs_and_cuts_long_paths_in_the_middle(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    folder = tmp_path / "clients" / "acme-corporation-international" / "customer-support-agent"
    folder.mkdir(parents=True)
    config = tiny_config(folder)
    data = tmp_path / "agent-tui-data" / "projects" / "customer-support-agent-1f0c6a00"
    assert len(str(config)) > 80 and len(str(data)) > 80  # wider than the terminal
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=data))
    async with app.run_test(size=(80, 24)) as pilot:
        await screen_shown(pilot, ServerInfoScreen, timeout=90, what="home")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
        lines = [line.strip() for line in screen_text(app).splitlines()]

        # The graph is on screen without scrolling, above the footer.
        assert any(line.startswith("tiny ") for line in lines[:-1]), lines
        # One line per row, in order: nothing wrapped onto the next line.
        labels = [line.split("  ")[0] for line in lines]
        start = labels.index("Context")
        assert labels[start : start + 4] == ["Context", "Server", "Project", "Data"], lines
        # Each path keeps its start and its end (the file name), cut in the middle.
        project = lines[start + 2]
        assert project.endswith("/customer-support-agent/langgraph.json"), project
        assert "…" in project and project.split()[1].startswith(str(tmp_path)[:8])
        assert lines[start + 3].split()[1].endswith("/customer-support-agent-1f0c6a00")
