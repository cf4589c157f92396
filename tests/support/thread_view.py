"""Shared by the thread view tests: threads built on the real server, the app around the view."""

from __future__ import annotations

from typing import Any

import httpx
from textual.widgets import Tabs

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.shell import ShellHarness

SIZE = (150, 45)
TICKS = 1200  # a loop thread of 1,202 checkpoints


def superstep(values: dict[str, Any], as_node: str) -> dict[str, Any]:
    return {"updates": [{"values": values, "as_node": as_node}]}


async def long_thread(client: AgentServerClient) -> Thread:
    """1,202 checkpoints, built with supersteps (as if the loop graph had run)."""
    steps = [superstep({"steps": TICKS}, "__input__"), superstep({"steps": TICKS}, "__start__")]
    steps += [superstep({"i": i}, "tick") for i in range(1, TICKS + 1)]
    return await client.threads.create(metadata={"graph_id": "loop"}, supersteps=steps)


async def counter_thread(client: AgentServerClient, n: int = 5) -> Thread:
    """A real counter run: steps -1 (input n), 0, 1 (inc: n+1, items [n]), 2 (dbl)."""
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    async with client.runs.stream(thread.thread_id, "counter", input={"n": n}) as run:
        async for _ in run:
            pass
    return thread


def view_app(
    client: AgentServerClient, thread_id: str, *, readonly: bool = False, **options: Any
) -> tuple[ShellHarness, ThreadViewScreen]:
    screen = ThreadViewScreen(client, thread_id, **options)
    app = ShellHarness(screen, readonly=readonly)
    app.client = client
    return app, screen


def loaded(screen: ThreadViewScreen) -> bool:
    return bool(screen.history.rows) and screen.checkpoint_view.checkpoint_id is not None


def underline_under_active_tab(screen: ThreadViewScreen) -> bool:
    """The tab bar's underline has moved under the active tab: it moves 20 ms after the
    tab changes and slides there for 0.3 s (under load the picture had it under State)."""
    tabs = screen.tabs.query_one(Tabs)
    active = tabs.active_tab
    if active is None:
        return False
    underline = tabs.query_one("Underline")
    span = active.virtual_region.shrink(active.styles.gutter).column_span
    drawn = (getattr(underline, "highlight_start", None), getattr(underline, "highlight_end", None))
    return drawn == span


def steps_shown(screen: ThreadViewScreen) -> list[int | None]:
    return [row.step for row in screen.pane.visible_items]


async def deep_nested_thread(url: str, content: str = "plain", **run: Any) -> str:
    """A run of the `deep_nested` graph (tests/graphs/deep_nested.py), waited for: `confirm`
    in `content` makes it ask inside two subgraphs; `run` adds to the run's body."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        thread_id: str = (await http.post("/threads", json={})).json()["thread_id"]
        body = {
            "assistant_id": "deep_nested",
            "input": {"messages": [{"role": "user", "content": content}]},
            **run,
        }
        answer = await http.post(f"/threads/{thread_id}/runs/wait", json=body)
        assert answer.status_code == 200, answer.text
    return thread_id
