"""A project with its own auth (`langgraph.json` `auth`) on the local server agent-tui
starts: agent-tui's client is let in as `langgraph dev` lets Studio in, and every other
client still meets the project's handler."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.agent_server import STUDIO_HEADERS
from tests.support.guarded import guarded_server as serve_guarded


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    project = tmp_path_factory.mktemp("guarded")
    with serve_guarded(project, tmp_path_factory.mktemp("guarded-data")) as url:
        yield url


async def test_agent_tui_is_let_in_and_runs_a_graph(guarded_server: str) -> None:
    async with AgentServerClient(guarded_server, headers=STUDIO_HEADERS) as client:
        thread = await client.threads.create()
        async with client.runs.stream(thread.thread_id, "counter", input={"n": 1}) as run:
            async for _ in run:
                pass
        state = await client.threads.get_state(thread.thread_id)
        assert state.values["n"] > 1
        assert thread.thread_id in [t.thread_id for t in await client.threads.search(limit=50)]


async def test_without_the_header_the_projects_handler_refuses(guarded_server: str) -> None:
    async with AgentServerClient(guarded_server) as client:
        with pytest.raises(ApiError) as refused:
            await client.threads.create()
    assert "the project says no" in str(refused.value)


def test_other_clients_meet_the_projects_auth(guarded_server: str) -> None:
    with httpx.Client(base_url=guarded_server, trust_env=False, timeout=30) as http:
        plain = http.post("/threads", json={})
        assert plain.status_code == 401 and "the project says no" in plain.text
        let_in = http.post("/threads", json={}, headers={"Authorization": "Bearer let-me-in"})
        assert let_in.status_code == 200, let_in.text
