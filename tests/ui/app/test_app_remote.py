"""The app against a running agent server (`--url`), and against nothing at all."""

from __future__ import annotations

import json

import langgraph_api
from textual.widgets import DataTable, Static

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.held_requests import HeldRequests
from tests.support.paths import GRAPHS_CONFIG
from tests.support.waiting import WaitFor

SIZE = (120, 40)
# What the session's agent server serves: the demo graphs and the test graphs.


def static_text(screen: object, selector: str) -> str:
    widget = screen.query_one(selector, Static)  # type: ignore[attr-defined]
    return str(widget.render())


def graph_ids(screen: ServerInfoScreen) -> list[str]:
    table = screen.query_one("#graphs", DataTable)
    return [table.get_row_at(i)[0].plain for i in range(table.row_count)]


async def test_info_screen_shows_server_version_and_demo_graphs(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="info screen")
        screen = app.screen
        assert isinstance(screen, ServerInfoScreen)
        await wait_for(pilot, lambda: screen.query_one("#graphs", DataTable).row_count > 0)

        summary = static_text(screen, "#summary")
        assert agent_server_url in summary
        assert f"langgraph-api {langgraph_api.__version__}" in summary
        assert "read-only" in summary
        served_graphs = sorted(json.loads(GRAPHS_CONFIG.read_text())["graphs"])
        assert "chat" in served_graphs
        assert graph_ids(screen) == served_graphs
        assert app.sub_title == f"connected · {agent_server_url}"
        assert app.client is not None and app.client.base_url == agent_server_url

        # r refreshes in place.
        await pilot.press("r")
        await wait_for(pilot, lambda: not screen.query_one("#graphs", DataTable).loading)
        assert graph_ids(screen) == served_graphs

        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_home_opens_with_its_graphs_drawn(agent_server_url: str, wait_for: WaitFor) -> None:
    # The graph list is asked for together with /info, so home can show it in its first
    # frame: here the server answers /info only once it has answered the list.
    async with HeldRequests.in_front_of(
        agent_server_url, hold=b"GET /info", until=b"POST /assistants/search"
    ) as proxy:
        app = AgentTuiApp(RemoteServer(proxy.url))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, ServerInfoScreen) and app.screen.is_mounted,
                workers=False,
                what="home",
            )
            screen = app.screen
            assert isinstance(screen, ServerInfoScreen)
            assert not screen.query_one("#graphs", DataTable).loading
            assert graph_ids(screen) == sorted(json.loads(GRAPHS_CONFIG.read_text())["graphs"])
            await pilot.press("ctrl+q")


async def test_q_on_home_quits(agent_server_url: str, wait_for: WaitFor) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await pilot.press("q")
    assert not app.is_running
    assert app.return_code == 0


def retry_offered(app: AgentTuiApp) -> bool:
    return any(b.binding.id == "startup.retry" for b in app.screen.active_bindings.values())


async def test_unreachable_url_shows_an_error_naming_the_url(
    free_port: int, wait_for: WaitFor
) -> None:
    url = f"http://127.0.0.1:{free_port}"
    app = AgentTuiApp(RemoteServer(url))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        assert not retry_offered(app)  # not while the first attempt runs
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        assert url in static_text(screen, "#error-title")
        assert url in static_text(screen, "#error-message")
        assert app.sub_title == "failed"
        assert retry_offered(app)

        # r tries again (and fails again); q quits.
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.attempt == 2 and screen.failed, what="a retry")
        assert "(attempt 2)" in static_text(screen, "#error-title")
        assert app.is_running
        await pilot.press("q")
    assert not app.is_running
    assert app.return_code == 1  # quitting after a failure is a failure
    assert app.failure == f"Could not connect to {url}"
