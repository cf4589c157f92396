"""Every key binding has an id, so a config can remap keys (`App.set_keymap`)."""

from __future__ import annotations

import pytest
from textual.dom import DOMNode

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.bindings import bindings_of
from tests.support.waiting import WaitFor


@pytest.mark.parametrize("screen", [StartupScreen, ServerInfoScreen])
def test_every_screen_binding_has_an_id(screen: type[DOMNode]) -> None:
    missing = [b.key for b in bindings_of(screen) if not b.id]
    assert missing == []


def test_every_app_binding_has_an_id() -> None:
    missing = [binding.key for binding in bindings_of(AgentTuiApp) if not binding.id]
    assert missing == []


async def test_keys_can_be_remapped_by_id(free_port: int, wait_for: WaitFor) -> None:
    app = AgentTuiApp(RemoteServer(f"http://127.0.0.1:{free_port}"))
    async with app.run_test() as pilot:
        app.set_keymap({"startup.retry": "f5"})
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.attempt == 2 and screen.failed, what="a retry")
