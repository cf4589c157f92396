"""`agent-tui` on a project with dependencies: its environment is built on the start-up
screen (uv's progress shown), and a build that fails shows uv's own words."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, LoadingIndicator, ProgressBar, Static

from agent_tui.local import load_langgraph_config
from agent_tui.local.project_env.environment import ensure_environment
from agent_tui.local.server_versions import supported_words
from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.projects import add_dependency, copy_weather_project
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor, screen_shown


async def test_the_build_shows_progress_then_the_project_graph(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = copy_weather_project(tmp_path)
    secret = "sk-test-7c6b5a4f3e2d1c0b9a8f"  # langgraph.json's env: reaches the graph only
    config.write_text(json.dumps({**json.loads(config.read_text()), "env": {"KEY": secret}}))
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    seen: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        bars: list[ProgressBar] = []  # the bar, once the build shows it

        status = startup.query_one("#status", Static)
        show = status.update

        def shown(content: Any = "", **options: Any) -> None:
            seen.append(str(content))  # every line the status shows, below the bar
            show(content, **options)

        status.update = shown  # type: ignore[method-assign]

        def building() -> bool:
            bars[:] = startup.query("#build-progress").results(ProgressBar)
            return bool(bars) and bool(bars[0].display) and bars[0].region.height == 1

        await wait_for(pilot, building, workers=False, what="the build's progress bar")
        await screen_shown(pilot, ServerInfoScreen, timeout=120, what="the info screen")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
        assert table.get_row_at(0)[0].plain == "weather"
        # Every package installed (the project's and what the server needs), counted.
        [bar] = bars
        assert bar.total is not None and bar.total > 1 and bar.progress == bar.total
        assert secret not in app.export_screenshot()
        await pilot.press("ctrl+q")
    assert any("tinyweather" in line or "environment" in line for line in seen)
    assert not [line for line in seen if secret in line]
    # uv's words once: `Built tinyweather @ …`, never `built tinyweather · Built tinyweather`.
    assert any("Built tinyweather @ file:" in line for line in seen), seen
    assert not [line for line in seen if re.search(r"(?i)(\w+ \S+) · +\1\b", line)], seen


async def test_a_failed_build_shows_uvs_words_and_offers_retry(
    tmp_path: Path, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = copy_weather_project(tmp_path)
    # Built once first: offline from here, everything else is in uv's cache (a fresh
    # machine's too), and the missing package is not looked for on the network.
    await asyncio.to_thread(ensure_environment, load_langgraph_config(config))
    monkeypatch.setenv("UV_OFFLINE", "1")
    add_dependency(config, "agent-tui-no-such-package-4711==0.0.1")
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, timeout=120, what="the failure")
        title = str(screen.query_one("#error-title", Static).render())
        assert title == "The project's environment could not be built"
        details = str(screen.query_one("#error-details", Static).render())
        assert details.startswith("uv said:")
        assert "agent-tui-no-such-package-4711" in details
        assert "Traceback" not in details
        # Nothing on screen still looks busy: no spinner, no pulsing build bar.
        await pilot.pause()
        assert screen.query_one("#build-progress", ProgressBar).region.height == 0
        assert screen.query_one(LoadingIndicator).region.height == 0
        assert app.local_server is None  # no server was started for a broken environment
        await pilot.press("ctrl+q")
    assert app.return_code == 1


async def test_a_langgraph_api_outside_the_range_says_which_releases_run(
    tmp_path: Path, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")  # the conflict is in the requirements alone
    config = copy_weather_project(tmp_path)
    add_dependency(config, "langgraph-api==0.13.8")
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, timeout=120, what="the failure")
        message = str(screen.query_one("#error-message", Static).render())
        assert message == (
            "the project's dependencies conflict with what agent-tui's local server needs: "
            f"it runs {supported_words()}"
        )
        assert "langgraph-api==0.13.8" in screen_text(app)  # uv's words below
        await pilot.press("ctrl+q")
