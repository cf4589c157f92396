"""How the Threads screen and the thread state view look, on fixed data (stable run to run)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from shell_support import ShellHarness

from agent_tui.client import AgentServerClient
from agent_tui.threads.query import ThreadQuery
from agent_tui.tui.screens.threads.list import ThreadsScreen

UPDATED = "2026-11-21T09:{:02d}:00+00:00"

WaitFor = Callable[..., Awaitable[None]]  # the `wait_for` fixture of conftest.py


def fake_thread(
    n: int, status: str, graph: str | None, last: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "thread_id": f"1f0c6a00-0000-7000-8000-{n:012x}",
        "status": status,
        "metadata": {"graph_id": graph} if graph else {},
        "created_at": UPDATED.format(n),
        "updated_at": UPDATED.format(50 - n),
        "extracted": {"last_message": last},
    }


THREADS = [
    fake_thread(1, "idle", "chat", {"type": "ai", "content": "You said: hello"}),
    fake_thread(2, "busy", "chat", {"type": "human", "content": "count to 2000"}),
    fake_thread(
        3,
        "interrupted",
        "chat",
        {"type": "ai", "content": "", "tool_calls": [{"name": "deploy", "args": {}}]},
    ),
    fake_thread(4, "error", "chat", {"type": "human", "content": "please fail [bold]now[/]"}),
    fake_thread(5, "interrupted", "counter", None),
    fake_thread(6, "idle", None, None),
]
STATE = {
    "values": {
        "messages": [
            {"type": "human", "content": "deploy to staging", "id": "1"},
            {
                "type": "ai",
                "content": "",
                "id": "2",
                "tool_calls": [{"name": "deploy", "args": {"target": "staging"}, "id": "c1"}],
            },
        ],
        "approved": None,
    },
    "next": ["approve"],
    "tasks": [{"id": "t1", "name": "approve", "interrupts": [{"value": {"question": "Deploy?"}}]}],
    "metadata": {"source": "loop", "step": 2},
    "created_at": "2026-11-21T09:00:00+00:00",
    "checkpoint": {"checkpoint_id": "1f0c0000-0000-6000-8000-000000000002", "checkpoint_ns": ""},
    "interrupts": [],
}


def fake_server() -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/threads/search":
            body = json.loads(request.content)
            return httpx.Response(
                200, json=THREADS[body["offset"] : body["offset"] + body["limit"]]
            )
        if path == "/threads/count":
            return httpx.Response(200, json=len(THREADS))
        if path.endswith("/state"):
            return httpx.Response(200, json=STATE)
        if path.startswith("/threads/"):
            return httpx.Response(200, json=THREADS[2])
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def harness(screen_for: Callable[[AgentServerClient], Any]) -> ShellHarness:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness(screen_for(client))
    app.client = client
    app.connection_status = "connected · http://agent.test"
    return app


async def loaded(pilot: Any) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_threads_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    app = harness(lambda client: ThreadsScreen(client, ThreadQuery(metadata={"team": "demo"})))
    assert snap_compare(app, terminal_size=(110, 16), run_before=loaded)


async def test_help_and_palette_offer_the_thread_keys(wait_for: WaitFor) -> None:
    from textual.command import CommandList, CommandPalette

    from agent_tui.tui.screens.help import HelpScreen

    screen_holder: list[ThreadsScreen] = []

    def make(client: AgentServerClient) -> ThreadsScreen:
        screen_holder.append(ThreadsScreen(client))
        return screen_holder[0]

    app = harness(make)
    async with app.run_test(size=(110, 30)) as pilot:
        await loaded(pilot)
        (screen,) = screen_holder
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        local = {d: k for k, d in app.screen.local_keys}
        assert (local["Search"], local["Copy thread"], local["Attention"]) == ("s", "C", "!")
        assert local["Delete"] == "^d" and local["New"] == "n"
        await pilot.press("escape")
        assert screen.is_current

        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"search thr")
        found = app.screen.query_one(CommandList)

        def prompts() -> list[str]:
            return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]

        # Providers answer concurrently: until the screen's own command is listed.
        await wait_for(pilot, lambda: any("Search threads" in p for p in prompts()), workers=False)
        await pilot.press("escape")
