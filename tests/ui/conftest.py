"""Fixtures of the Pilot tests: wait on the app's own progress, never on fixed sleeps."""

from __future__ import annotations

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from tests.support.chat import chat_assistant
from tests.support.waiting import WaitFor, wait_for


@pytest.fixture(name="wait_for")
def wait_for_fixture() -> WaitFor:
    """`tests.support.waiting.wait_for`: wait until a condition holds in the app."""
    return wait_for


@pytest.fixture
async def fast_chat(client: AgentServerClient) -> Assistant:
    """An assistant of the demo `chat` graph that streams with no delay."""
    return await chat_assistant(client, token_delay_ms=0)
