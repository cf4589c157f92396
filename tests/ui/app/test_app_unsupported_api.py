"""agent-tui installed with a langgraph-api release outside the supported range (0.13, in an
environment of its own: `tests.support.api_envs`): the start-up screen says which release is
installed and which it runs on, first, rather than only that the server exited."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.local import DEMO_CONFIG
from agent_tui.server.supported import supported_words
from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.api_envs import TOO_OLD, build_api_env
from tests.support.waiting import WaitFor


def shown(screen: StartupScreen, widget: str) -> str:
    static = screen.query_one(f"#{widget}", Static)
    return str(static.render()) if static.display else ""


async def test_the_start_up_screen_says_which_release_is_installed(
    tmp_path: Path, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo's server runs on agent-tui's own interpreter: the old environment's here.
    monkeypatch.setattr(sys, "executable", str(build_api_env(TOO_OLD).python))
    app = AgentTuiApp(LocalServer(config_path=DEMO_CONFIG, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        await wait_for(pilot, lambda: startup.failed, timeout=90, what="the failure")
        assert shown(startup, "error-title") == "The local agent server did not start"
        message = shown(startup, "error-message").splitlines()
        assert message[0] == (
            f"langgraph-api {TOO_OLD.api} is installed; "
            f"agent-tui's local server runs {supported_words()}"
        )
        assert message[1].startswith("the agent server exited with code 4 before it was ready")
        await pilot.press("ctrl+q")
