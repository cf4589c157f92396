"""From the home screen, `c` on a graph starts a chat with it in one step: a new thread on
that graph, the thread view on its Chat tab, the prompt focused."""

from __future__ import annotations

from textual.widgets import DataTable

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import ai_texts, ended, mounted_pane
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor, screen_shown


async def test_c_on_a_graph_opens_a_new_chat_with_it(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(150, 45)) as pilot:
        await screen_shown(pilot, ServerInfoScreen, what="home")
        home = app.screen
        table = home.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")
        table.move_cursor(row=table.get_row_index("chat"))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadViewScreen), what="the view")
        view = app.screen
        assert isinstance(view, ThreadViewScreen)
        pane = await mounted_pane(app, pilot, wait_for)
        await wait_for(pilot, lambda: pane.prompt.has_focus, what="the prompt focused")
        thread = await view.client.threads.get(view.thread_id)
        assert thread.metadata.get("graph_id") == "chat"
        await pilot.press(*"hi there", "enter")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        assert ai_texts(pane) == ["You said: hi there"]


async def test_c_is_refused_read_only(agent_server_url: str, wait_for: WaitFor) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(150, 45), notifications=True) as pilot:
        await screen_shown(pilot, ServerInfoScreen, what="home")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ServerInfoScreen)
        await toast_saying(pilot, "Read-only mode")
