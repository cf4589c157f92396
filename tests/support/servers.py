"""The same test on each agent server agent-tui supports: langgraph-api (the session's
in-memory server) and Aegra (PostgreSQL + Redis, `tests/support/aegra.py`).

Import `server` into a test module to run each of its tests once per server."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

SERVERS = ["langgraph-api", "aegra"]


@dataclass(frozen=True)
class Server:
    kind: str  # "langgraph-api" or "aegra"
    url: str
    other_url: str | None = None  # a second instance on the same data (Aegra)


@pytest.fixture(params=SERVERS)
def server(request: pytest.FixtureRequest) -> Server:
    if request.param == "aegra":
        stack = request.getfixturevalue("aegra")
        return Server("aegra", stack.url_a, stack.url_b)
    return Server("langgraph-api", request.getfixturevalue("agent_server_url"))
