"""Mistakes in what the app is given: an unknown theme in the config, an unusable URL
(a deployment's server URL comes from a control plane, not from the checked config)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.settings.config import AgentTuiConfig, UiConfig
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor

SIZE = (120, 40)


async def test_an_unknown_theme_is_reported_and_the_app_starts_anyway(
    agent_server_url: str,
    wait_for: WaitFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))  # no theme saved by another test
    config_file = tmp_path / "config.toml"
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(config_file))
    config = AgentTuiConfig(ui=UiConfig(theme="nrod"))
    default = AgentTuiApp(RemoteServer(agent_server_url)).theme
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True, config=config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        # The toast first: it shows for 15 s from the start, and under load the home
        # screen and its loads took longer than that.
        said = await toast_saying(pilot, "ui.theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        assert f"{config_file}: ui.theme: no theme called 'nrod'" in said
        assert "did you mean 'nord'?" in said
        assert app.theme == default


async def test_an_unusable_server_url_is_an_error_message_not_a_crash(wait_for: WaitFor) -> None:
    url = "http://127.0.0.1:99999"
    app = AgentTuiApp(RemoteServer(url))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        shown = str(screen.query_one("#error-message", Static).render())
        assert "the port must be a number from 1 to 65535" in shown
        assert "TaskGroup" not in shown
        assert app.is_running
