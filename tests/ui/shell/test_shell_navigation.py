"""Navigation in the real app on the real server: home keys, `:` routes, `esc` back."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from tests.support.screen import screen_text, toasts
from tests.support.waiting import WaitFor, screen_shown


async def connected(app: AgentTuiApp, pilot: Pilot[Any], wait_for: WaitFor) -> ServerInfoScreen:
    await screen_shown(pilot, ServerInfoScreen, what="home")
    home = app.screen
    assert isinstance(home, ServerInfoScreen)
    table = home.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")
    return home


async def test_home_keys_and_commands_open_screens_and_esc_goes_back(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(120, 30)) as pilot:
        home = await connected(app, pilot, wait_for)
        assert "connected" in str(home.query_one(Breadcrumb).render())

        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ResourceScreen), what="threads")
        threads = app.screen
        assert isinstance(threads, ResourceScreen) and threads.RESOURCES == "threads"

        # A top-level command replaces the current resource screen (no pile of screens).
        await pilot.press("colon", *"assistants", "enter")
        await wait_for(
            pilot,
            lambda: getattr(app.screen, "RESOURCES", "") == "assistants",
            what="assistants",
        )
        assert len(app.screen_stack) == 3

        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is home, what="home again")

        # `enter` on a graph: the assistants of that graph (once the table has its focus
        # back: the screen gives it back as it resumes, which under load comes a moment
        # after it is shown, and an `enter` before that goes nowhere).
        graphs = home.query_one("#graphs", DataTable)

        def graphs_focused() -> bool:
            if not graphs.has_focus:
                graphs.focus()  # (what the screen does as it resumes, also if that is late)
            return graphs.has_focus

        await wait_for(pilot, graphs_focused, what="the graphs focused again")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: getattr(app.screen, "RESOURCES", "") == "assistants",
            what="the graph's assistants",
        )
        await pilot.press("colon", *"info", "enter")
        await wait_for(pilot, lambda: app.screen is home, what=":info goes home")


async def test_a_missing_thread_is_named(agent_server_url: str, wait_for: WaitFor) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    missing = "00000000-0000-4000-8000-000000000000"
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await connected(app, pilot, wait_for)
        await pilot.press("colon", *f"thread {missing}", "enter")
        await wait_for(pilot, lambda: len(app.screen_stack) == 3, what="the thread screen")
        await wait_for(
            pilot,
            lambda: missing in " ".join(toasts(app)) + screen_text(app),
            what="the missing id named",
            timeout=15,
        )
