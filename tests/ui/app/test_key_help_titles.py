"""`?` names the screen it lists the keys of in words a user reads (`Keys: threads`),
never a Python class name, on every screen a route opens and on the start-up screen."""

from __future__ import annotations

import re

from textual.widgets import Static

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui import routes
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.thread_view import counter_thread
from tests.support.waiting import WaitFor

CLASS_NAME = re.compile(r"[A-Z][a-z0-9]+[A-Z]|Screen\b")  # `ThreadViewScreen`, `PathScreen`


def help_title(app: AgentTuiApp) -> str:
    assert isinstance(app.screen, HelpScreen)
    return str(app.screen.query_one("#help-title", Static).render())


async def test_every_screen_a_route_opens_has_a_human_title_in_its_key_help(
    agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)
    # The control plane's screens (deployments, providers) are left out: they start one.
    named = [route for route in routes.routes() if route.needs_agent_server]
    app = AgentTuiApp(RemoteServer(agent_server_url))
    titles: dict[str, str] = {}
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        for route in named:
            argument = thread.thread_id if route.argument or route.takes_thread_id else None
            assert await app.open_resource(route.name, argument)
            await pilot.pause()
            app.screen.set_focus(None)  # in a prompt (the thread view's chat), `?` types
            await pilot.press("question_mark")
            await wait_for(
                pilot, lambda: isinstance(app.screen, HelpScreen), what=f"the help of {route.name}"
            )
            titles[route.name] = help_title(app)
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help closed"
            )
    assert titles["threads"] == "Keys: threads"
    assert {name: title for name, title in titles.items() if CLASS_NAME.search(title)} == {}


async def test_the_start_up_screen_has_a_human_title_in_its_key_help(
    free_port: int, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(f"http://127.0.0.1:{free_port}"))
    async with app.run_test() as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        await pilot.press("question_mark")
        assert not CLASS_NAME.search(help_title(app))
