"""The main screens on langgraph-api and on Aegra (issue 22): home names the server, the
threads list lists (Aegra has no `/threads/count` and refuses projections), a thread opens
with its history and its messages (Aegra fills no values in the thread record), the
assistants, store and crons screens show what the server holds, and a cron opens (Aegra
has no `GET /runs/crons/{id}`)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.screen import Screen

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.screens.crons.detail import CronDetailScreen
from agent_tui.tui.screens.crons.list import CronsScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.store.browser import StoreScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from tests.support.screen import screen_text
from tests.support.servers import Server, server
from tests.support.waiting import WaitFor

__all__ = ["server"]  # the fixture: each test runs once per server

SIZE = (150, 45)


@pytest.fixture
async def on(server: Server) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(server.url) as client:
        yield client


async def test_home_threads_thread_view_assistants_store_and_crons(
    server: Server, on: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await on.threads.create(metadata={"graph_id": "chat", "walk": server.kind})
    async with on.runs.stream(
        thread.thread_id, "chat", input={"messages": [{"role": "user", "content": "walk me"}]}
    ) as run:
        async for _ in run:
            pass
    await on.store.put_item(["walk", server.kind], "k1", {"seen": True})
    cron = await on.crons.create(
        "chat", "0 9 * * 1-5", input={"messages": [{"role": "user", "content": "daily"}]}
    )
    info = await on.info()

    app = AgentTuiApp(RemoteServer(server.url))
    async with app.run_test(size=SIZE) as pilot:

        async def opened(kind: type[Screen[Any]], what: str) -> None:
            await wait_for(pilot, lambda: isinstance(app.screen, kind), what=what)

        async def shows(text: str, what: str) -> None:
            await wait_for(pilot, lambda: text in screen_text(app), what=what)

        await opened(ServerInfoScreen, "home")
        expected = "Aegra 0.11.0" if server.kind == "aegra" else f"langgraph-api {info.version}"
        await shows(expected, "the server's name and version")
        await shows("questions", "the graphs")

        await pilot.press("t")
        await opened(ThreadsScreen, "the threads list")
        await shows(thread.thread_id[-8:], "the thread in the list")
        assert "Traceback" not in screen_text(app) and "not supported" not in screen_text(app)

        assert app.client is not None
        view = ThreadViewScreen(app.client, thread.thread_id, chat=True)
        await app.push_screen(view)
        await wait_for(pilot, lambda: view.thread is not None, what="the thread")
        await shows("You said: walk me", "the thread's messages in its chat")
        await pilot.press("escape")
        await pilot.press("escape")
        await opened(ServerInfoScreen, "home again")

        await pilot.press("a")
        await opened(AssistantsScreen, "the assistants")
        await shows("chat", "the chat graph's assistant")
        await pilot.press("escape")
        await opened(ServerInfoScreen, "home again")

        # (The shared langgraph-api server holds other tests' items: this namespace's.)
        await app.push_screen(StoreScreen(app.client, prefix=("walk",)))
        await shows("k1", "the store item")
        await app.pop_screen()

        await app.push_screen(CronsScreen(app.client))
        await shows(cron.cron_id[-8:], "the cron in the list")
        await app.push_screen(CronDetailScreen(app.client, cron))
        await shows("0 9 * * 1-5", "the cron's detail")
        await pilot.press("r")  # read again from the server (Aegra: found by search)
        await shows("0 9 * * 1-5", "the cron's detail, refreshed")
        shown = screen_text(app)
        # (As a word: a random cron id may hold "405", as 86dc405c did.)
        assert "Not offered" not in shown and not re.search(r"\b405\b", shown), shown
    await on.crons.delete(cron.cron_id)
