"""`client.assistants` against the real agent server, per the seed's version rules."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.client import AgentServerClient, NotFound, ValidationFailed

COUNTER = "counter"


async def final_n(client: AgentServerClient, assistant_id: str, **run: Any) -> int:
    """Run the counter graph from n=5 on a fresh thread and return the final n."""
    thread = await client.threads.create()
    async with client.runs.stream(
        thread.thread_id, assistant_id, input={"n": 5}, stream_mode="values", **run
    ) as stream:
        values = [event.data async for event in stream if event.event == "values"]
    return int(values[-1]["n"])


async def test_create_returns_the_new_assistant(client: AgentServerClient) -> None:
    created = await client.assistants.create(COUNTER, {"step": 10, "double": False}, "ten")
    assert created.graph_id == COUNTER
    assert created.name == "ten"
    assert created.context == {"step": 10, "double": False}
    assert created.metadata == {}
    assert created.version == 1
    assert created.created_at is not None and created.updated_at is not None
    fetched = await client.assistants.get(created.assistant_id)
    assert fetched.context == created.context


async def test_update_replaces_the_whole_context_and_versions_count_from_one(
    client: AgentServerClient,
) -> None:
    created = await client.assistants.create(COUNTER, {"step": 10, "double": False}, "v")
    updated = await client.assistants.update(created.assistant_id, {"step": 3})
    assert updated.version == 2
    assert updated.context == {"step": 3}  # `double` is gone: no merge with version 1
    versions = await client.assistants.get_versions(created.assistant_id)
    assert [(v.version, v.context) for v in versions] == [
        (2, {"step": 3}),
        (1, {"step": 10, "double": False}),
    ]
    # Runs by assistant id use the active version: (5 + 3) * 2.
    assert await final_n(client, created.assistant_id) == 16


async def test_set_latest_makes_an_older_version_active(client: AgentServerClient) -> None:
    created = await client.assistants.create(COUNTER, {"step": 10, "double": False}, "switch")
    await client.assistants.update(created.assistant_id, {"step": 3})
    switched = await client.assistants.set_latest(created.assistant_id, 1)
    assert switched.version == 1
    active = await client.assistants.active_version(created.assistant_id)
    assert active.version == 1
    assert active.context == {"step": 10, "double": False}
    # Passing the active version's context makes the run right on any server, including
    # the in-memory runtime that forgets to switch the context (docs/server-quirks.md).
    assert await final_n(client, created.assistant_id, context=active.context) == 15


async def test_a_run_level_context_reaches_the_graph(client: AgentServerClient) -> None:
    assert await final_n(client, COUNTER) == 12  # the graph's defaults: step 1, double
    assert await final_n(client, COUNTER, context={"step": 2, "double": False}) == 7


async def test_search_by_graph_and_the_default_assistant(client: AgentServerClient) -> None:
    found = await client.assistants.search(graph_id=COUNTER, limit=1000)
    assert {a.graph_id for a in found} == {COUNTER}
    defaults = [a for a in found if a.is_default]
    assert [a.name for a in defaults] == [COUNTER]
    first = await client.assistants.search(graph_id=COUNTER, limit=1)
    assert len(first) == 1


async def test_graph_and_schemas(client: AgentServerClient) -> None:
    created = await client.assistants.create(COUNTER, {}, "shape")
    graph = await client.assistants.get_graph(created.assistant_id)
    assert [node.id for node in graph.nodes] == ["__start__", "inc", "dbl", "__end__"]
    assert [(e.source, e.target) for e in graph.edges] == [
        ("__start__", "inc"),
        ("inc", "dbl"),
        ("dbl", "__end__"),
    ]
    schemas = await client.assistants.get_schemas(created.assistant_id)
    assert schemas.context_schema is not None
    properties = schemas.context_schema["properties"]
    assert properties["step"]["default"] == 1
    assert properties["double"]["default"] is True


async def test_delete_removes_every_version(client: AgentServerClient) -> None:
    created = await client.assistants.create(COUNTER, {"step": 2}, "gone")
    await client.assistants.update(created.assistant_id, {"step": 4})
    await client.assistants.delete(created.assistant_id)
    with pytest.raises(NotFound):
        await client.assistants.get(created.assistant_id)
    with pytest.raises(NotFound):
        await client.assistants.get_versions(created.assistant_id)


async def test_unknown_graph_and_malformed_id_read_well(client: AgentServerClient) -> None:
    with pytest.raises(NotFound) as caught:
        await client.assistants.create("no-such-graph", {}, "x")
    assert "Graph 'no-such-graph' not found" in str(caught.value)
    with pytest.raises(ValidationFailed) as invalid:
        await client.assistants.get("not-a-uuid")
    assert "UUID" in str(invalid.value)
