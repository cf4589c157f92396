"""Fixtures of the chat tests that break a run's stream (`tests/support/stream_faults.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent_tui.client import AgentServerClient
from tests.support.stream_faults import FaultyStreams


@pytest.fixture
def faults() -> FaultyStreams:
    return FaultyStreams()


@pytest.fixture
async def faulty(agent_server_url: str, faults: FaultyStreams) -> AsyncIterator[AgentServerClient]:
    """A client of the real server whose next run stream breaks as `faults` is armed."""
    async with AgentServerClient(agent_server_url, http_transport=faults) as client:
        yield client
