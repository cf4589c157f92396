"""How the thread view looks, on fixed data from a fake server (stable run to run), and
`:thread <id>` opening it on the real server."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from shell_support import ShellHarness
from thread_view_support import counter_thread, loaded

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen

WaitFor = Callable[..., Awaitable[None]]
THREAD_ID = "1f0c6a00-0000-7000-8000-00000000c0de"


def checkpoint_id(n: int) -> str:
    return f"1f0c0000-0000-6000-8000-0000000000{n:02d}"


def message(n: int, kind: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "content": content, "id": f"m{n}", **extra}


HUMAN = message(1, "human", "deploy to staging")
AI = message(
    2,
    "ai",
    "",
    tool_calls=[{"name": "deploy", "args": {"target": "staging"}, "id": "c1"}],
)


def state(
    n: int, step: int, source: str, values: dict[str, Any], next_: list[str], **extra: Any
) -> dict[str, Any]:
    return {
        "values": values,
        "next": next_,
        "tasks": extra.pop("tasks", []),
        "metadata": {"source": source, "step": step},
        "created_at": f"2026-11-21T09:00:{n:02d}+00:00",
        "checkpoint": {"checkpoint_id": checkpoint_id(n), "checkpoint_ns": ""},
        "parent_checkpoint": {"checkpoint_id": checkpoint_id(n - 1)} if n > 1 else None,
        "interrupts": [],
    }


HISTORY = [
    state(
        4,
        2,
        "loop",
        {"messages": [HUMAN, AI], "approved": None},
        ["approve"],
        tasks=[{"id": "t3", "name": "approve", "interrupts": [{"value": {"question": "Deploy?"}}]}],
    ),
    state(3, 1, "loop", {"messages": [HUMAN]}, ["agent"]),
    state(2, 0, "loop", {"messages": [HUMAN]}, ["agent"]),
    state(1, -1, "input", {"messages": []}, ["__start__"]),
]
HISTORY[3]["tasks"] = [{"id": "t0", "name": "__start__", "result": {"messages": [HUMAN]}}]
THREAD = {
    "thread_id": THREAD_ID,
    "status": "interrupted",
    "metadata": {"graph_id": "chat"},
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:04+00:00",
}


def fake_server() -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/history"):
            body = json.loads(request.content)
            before = (body.get("before") or {}).get("configurable", {}).get("checkpoint_id")
            start = 0
            if before:
                start = next(
                    i + 1
                    for i, s in enumerate(HISTORY)
                    if s["checkpoint"]["checkpoint_id"] == before
                )
            return httpx.Response(200, json=HISTORY[start : start + body["limit"]])
        if path == f"/threads/{THREAD_ID}":
            return httpx.Response(200, json=THREAD)
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def test_thread_view_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    screen = ThreadViewScreen(client, THREAD_ID, status_interval=0)
    app = ShellHarness(screen)
    app.client = client
    app.connection_status = "connected · http://agent.test"

    async def settled(pilot: Any) -> None:
        # The history and the checkpoint under the cursor loaded, and nothing left loading.
        await wait_for(
            pilot,
            lambda: loaded(screen) and all(worker.is_finished for worker in app.workers),
            what="the thread view",
        )

    async def run_before(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press("down")  # step 1: the human message only
        await pilot.press("up")
        await settled(pilot)

    assert snap_compare(app, terminal_size=(140, 32), run_before=run_before)


async def test_thread_command_opens_the_thread_view(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    async with AgentServerClient(agent_server_url) as client:
        thread = await counter_thread(client, 5)
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.client is not None, what="the connection")
        await pilot.pause()
        assert await app.run_command(f"thread {thread.thread_id}")
        screen = app.screen
        assert isinstance(screen, ThreadViewScreen)
        await wait_for(pilot, lambda: screen.checkpoint_view.state is not None)
        assert screen.checkpoint_view.state is not None
        assert screen.checkpoint_view.state.values == {"n": 12, "items": [5]}

        # Not an id at all: said at once, nothing opens (a short id would be looked up).
        assert not await app.run_command("thread not-a-uuid")
        assert app.screen is screen
        await wait_for(
            pilot,
            lambda: any(
                "'not-a-uuid' is not a thread id" in str(n.message) for n in app._notifications
            ),
            what="the word that it is not a thread id",
        )


def test_timeline_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    """The Timeline tab: the supersteps as a waterfall, each node with how long it took
    (from the fixed checkpoint times)."""
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    screen = ThreadViewScreen(client, THREAD_ID, status_interval=0)
    app = ShellHarness(screen)
    app.client = client
    app.connection_status = "connected · http://agent.test"

    async def run_before(pilot: Any) -> None:
        await wait_for(
            pilot,
            lambda: loaded(screen) and all(worker.is_finished for worker in app.workers),
            what="the thread view",
        )
        screen.tabs.active = "tab-timeline"
        await wait_for(
            pilot,
            lambda: (
                bool(screen.query_one("#timeline").steps)  # type: ignore[attr-defined]
                and all(worker.is_finished for worker in app.workers)
            ),
            what="the timeline",
        )

    assert snap_compare(app, terminal_size=(140, 32), run_before=run_before)
