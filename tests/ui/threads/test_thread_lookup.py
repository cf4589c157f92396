"""`:thread` and `:runs` take the short id the tables show (`…1d37dc1d`), not only a full
id; a short id that names no thread, or several, is said, and nothing opens."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from textual.widgets import DataTable

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.text.short_ids import short_thread_id
from agent_tui.threads.lookup import ThreadNotFound, resolve_thread_id
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_runs import ThreadRunsScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor, screen_shown


async def new_thread(url: str) -> str:
    # A generous timeout: the shared server answers slowly on a loaded machine.
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=60) as http:
        thread_id: str = (await http.post("/threads", json={})).json()["thread_id"]
    return thread_id


async def test_a_short_id_resolves_to_its_thread(agent_server_url: str) -> None:
    thread_id = await new_thread(agent_server_url)
    client = AgentServerClient(agent_server_url)
    try:
        assert await resolve_thread_id(client, thread_id) == thread_id
        assert (
            await resolve_thread_id(client, short_thread_id(thread_id)) == thread_id
        )  # "…1d37dc1d"
        assert await resolve_thread_id(client, thread_id[-8:].upper()) == thread_id
        with pytest.raises(ThreadNotFound, match="is not a thread id"):
            await resolve_thread_id(client, "not-an-id!")
        with pytest.raises(ThreadNotFound, match="No thread id ends with"):
            await resolve_thread_id(client, "ffffffffffff0000000")
    finally:
        await client.aclose()


async def home(app: AgentTuiApp, pilot: Any, wait_for: WaitFor) -> None:
    await screen_shown(pilot, ServerInfoScreen, what="home")
    table = app.screen.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")


async def test_thread_and_runs_commands_take_the_short_id(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await new_thread(agent_server_url)
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await home(app, pilot, wait_for)
        await pilot.press("colon", *f"thread {thread_id[-8:]}", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadViewScreen), what="the view")
        assert isinstance(app.screen, ThreadViewScreen) and app.screen.thread_id == thread_id

        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await pilot.press("colon", *f"runs {short_thread_id(thread_id)}", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
        assert isinstance(app.screen, ThreadRunsScreen) and app.screen.thread_id == thread_id

        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await pilot.press("colon", *"thread 0000dead0000beef", "enter")
        await toast_saying(pilot, "No thread id ends with")
        assert isinstance(app.screen, ServerInfoScreen)
