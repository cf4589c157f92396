"""The header's connection state: "offline" after a failed request, "connected" again as
soon as any request to the server gets an answer, on any screen (not only list screens)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent_tui.app import AgentTuiApp
from agent_tui.screens.server_info import ServerInfoScreen
from agent_tui.target import RemoteServer

WaitFor = Callable[..., Awaitable[None]]


async def test_any_answer_from_the_server_clears_offline(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        assert app.sub_title == f"connected · {agent_server_url}"
        # As after a request that could not reach the server (a blip).
        app.note_offline(agent_server_url)
        await pilot.pause()
        assert app.sub_title.startswith("offline")
        # The home screen's refresh is not a list screen: its answer alone brings it back.
        await pilot.press("r")
        await wait_for(
            pilot, lambda: app.sub_title == f"connected · {agent_server_url}", what="connected"
        )
