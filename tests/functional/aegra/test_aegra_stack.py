"""The self-hosted Aegra stack the Aegra tests run on: two instances, one database, one Redis.

What a user of a scaled-out Aegra relies on: both instances are Aegra 0.11.0, a thread
made on one is there on the other, a run started on one is followed to its end from the
other, and a restart of both instances loses nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_tui.client import AgentServerClient
from tests.support.aegra import AegraStack

HELLO = {"messages": [{"role": "user", "content": "hello"}]}


@pytest.fixture
async def client_b(aegra: AegraStack) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(aegra.url_b) as client:
        yield client


def texts(values: dict[str, Any]) -> list[str]:
    return [message["content"] for message in values["messages"]]


async def test_both_instances_are_aegra_0_11_0(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    for client in (aegra_client, client_b):
        info = await client.transport.request_json("GET", "/info")
        assert (info["name"], info["version"]) == ("Aegra", "0.11.0")


async def test_a_thread_made_on_one_instance_is_on_the_other(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create(metadata={"made_on": "a"})
    seen = await client_b.threads.get(thread.thread_id)
    assert seen.metadata["made_on"] == "a"


async def test_a_run_started_on_one_instance_is_joined_from_the_other(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create()
    run = await aegra_client.runs.create(
        thread.thread_id, "chat", input=HELLO, context={"token_delay_ms": 0}
    )
    values = await client_b.runs.join(thread.thread_id, run.run_id)
    assert texts(values) == ["hello", "You said: hello"]


async def test_a_thread_keeps_its_messages_across_a_restart_of_both_instances(
    aegra: AegraStack, aegra_client: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create()
    run = await aegra_client.runs.create(
        thread.thread_id, "chat", input=HELLO, context={"token_delay_ms": 0}
    )
    await aegra_client.runs.join(thread.thread_id, run.run_id)

    aegra.restart()

    for url in (aegra.url_a, aegra.url_b):
        async with AgentServerClient(url) as client:
            state = await client.threads.get_state(thread.thread_id)
            assert texts(state.values) == ["hello", "You said: hello"]
