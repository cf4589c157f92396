"""Helpers for Pilot tests: wait on the app's own progress, never on fixed sleeps."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from textual.app import App
from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant

WaitFor = Callable[..., Awaitable[None]]


async def _wait_for(
    pilot: Pilot[object],
    condition: Callable[[], bool],
    *,
    timeout: float = 30.0,
    what: str = "condition",
    workers: bool = True,
) -> None:
    """Let workers and messages run until `condition()` holds, or fail after `timeout`.

    `workers=False` does not wait for running workers to finish between checks: for
    watching what the app shows while a worker is still busy.
    """
    app: App[object] = pilot.app
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        # Polls a condition, bounded by the deadline: the short pause only keeps this
        # loop from spinning while a subprocess or the network is busy.
        if workers:
            await app.workers.wait_for_complete()
        await pilot.pause(0.02)


@pytest.fixture
def wait_for() -> WaitFor:
    return _wait_for


@pytest.fixture
async def client(agent_server_url: str) -> AsyncIterator[AgentServerClient]:
    """A client of the session's agent server, for one test."""
    async with AgentServerClient(agent_server_url) as client:
        yield client


@pytest.fixture
async def fast_chat(client: AgentServerClient) -> Assistant:
    """An assistant of the demo `chat` graph that streams with no delay."""
    from chat_support import chat_assistant

    return await chat_assistant(client, token_delay_ms=0)
