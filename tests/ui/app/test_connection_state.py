"""The header's connection state: "offline" after a failed request, "connected" again as
soon as any request to the server gets an answer, on any screen (not only list screens)."""

from __future__ import annotations

import asyncio

from textual.widgets import Static

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.drop_proxy import DropProxy
from tests.support.waiting import WaitFor


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


async def test_a_server_that_is_gone_marks_the_header_offline_on_the_home_refresh(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    # As a deleted deployment's server: it answered, then nothing listens any more.
    proxy = await DropProxy.in_front_of(agent_server_url).start()
    url = proxy.url
    app = AgentTuiApp(RemoteServer(url), readonly=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
            assert app.sub_title == f"connected · {url}"
            await proxy.stop()
            await pilot.press("r")
            await wait_for(pilot, lambda: app.sub_title.startswith("offline"), what="offline")
            assert url.removeprefix("http://") in app.sub_title
    finally:
        await proxy.stop()


async def test_the_start_up_screen_says_what_a_failing_server_answered(
    wait_for: WaitFor,
) -> None:
    async def answer_500(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        body = b'{"detail": "database unavailable"}'
        head = f"HTTP/1.1 500 Internal Server Error\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"Content-Type: application/json\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer_500, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    app = AgentTuiApp(RemoteServer(url))
    async with server, app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        title = str(screen.query_one("#error-title", Static).render())
        assert f"{url} answered 500" in title
        assert "Could not connect" not in title
