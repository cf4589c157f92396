"""Thread export and import through supersteps: into the same server and into a fresh one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.local import EmbeddedAgentServer
from agent_tui.threads.export import (
    FORMAT,
    IMPORTED_FROM,
    VERSION,
    ExportError,
    compare_with_export,
    export_thread,
    import_thread,
    load_export,
)
from agent_tui.threads.history import ThreadHistory
from tests.support.paths import GRAPHS_CONFIG


@pytest.fixture(scope="module")
def fresh_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second, empty agent server (~4 s to start): imports must not need the source."""
    data_dir = tmp_path_factory.mktemp("fresh-server")
    with EmbeddedAgentServer(
        GRAPHS_CONFIG, data_dir=data_dir, log_file=data_dir / "server.log"
    ) as server:
        yield server.url


@pytest.fixture
async def fresh(fresh_server_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(fresh_server_url) as client:
        yield client


async def run(client: AgentServerClient, thread_id: str, graph: str, input: Any) -> None:
    async with client.runs.stream(
        thread_id, graph, input=input, context={"token_delay_ms": 0}
    ) as stream:
        async for _ in stream:
            pass


async def lineage_summary(client: AgentServerClient, thread_id: str) -> list[tuple[Any, ...]]:
    history = ThreadHistory(client, thread_id)
    await history.load_all()
    return [(s.step, s.values, s.next) for s in history.lineage()]


async def test_export_of_a_run_and_an_update(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter", "owner": "ann"})
    await run(client, thread.thread_id, "counter", {"n": 5})
    await client.threads.update_state(thread.thread_id, {"n": 100, "items": [7]}, as_node="inc")

    data = await export_thread(client, thread.thread_id)
    assert (data["format"], data["version"]) == (FORMAT, VERSION)
    assert data["source"] == {
        "url": client.base_url,
        "thread_id": thread.thread_id,
        "graph_id": "counter",
    }
    assert data["thread"]["thread_id"] == thread.thread_id
    assert data["thread"]["metadata"]["owner"] == "ann"
    assert data["thread"]["status"] == "interrupted"  # the update left `dbl` pending
    summary = [
        (
            c["step"],
            c["source"],
            c["as_node"],
            c["writes"],
            c["writes_from"],
            c["values"],
            c["next"],
        )
        for c in data["checkpoints"]
    ]
    assert summary == [
        (-1, "input", "__input__", {"__input__": {"n": 5}}, "input", {"items": []}, ["__start__"]),
        (0, "loop", "__start__", {"__start__": {"n": 5}}, "tasks", {"n": 5, "items": []}, ["inc"]),
        (
            1,
            "loop",
            "inc",
            {"inc": {"n": 6, "items": [5]}},
            "tasks",
            {"n": 6, "items": [5]},
            ["dbl"],
        ),
        (2, "loop", "dbl", {"dbl": {"n": 12}}, "tasks", {"n": 12, "items": [5]}, []),
        # update_state records no writer: the delta from the parent, as the node whose
        # successors are `next` in the graph.
        (
            3,
            "update",
            "inc",
            {"inc": {"n": 100, "items": [7]}},
            "delta",
            {"n": 100, "items": [5, 7]},
            ["dbl"],
        ),
    ]
    ids = [c["checkpoint_id"] for c in data["checkpoints"]]
    assert [c["parent_checkpoint_id"] for c in data["checkpoints"]] == [None, *ids[:-1]]
    # The file is plain JSON and reads back as valid.
    assert load_export(json.dumps(data)) == data


async def test_round_trip_in_the_same_server(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    await run(client, thread.thread_id, "counter", {"n": 5})
    await run(client, thread.thread_id, "counter", {"n": 1})  # a second input on the thread
    await client.threads.update_state(thread.thread_id, {"items": [40, 41]}, as_node="dbl")
    data = await export_thread(client, thread.thread_id)

    copy = await import_thread(client, data)
    assert copy.thread_id != thread.thread_id
    assert copy.metadata[IMPORTED_FROM] == thread.thread_id
    assert copy.values == {"n": 4, "items": [5, 1, 40, 41]}
    assert await lineage_summary(client, copy.thread_id) == await lineage_summary(
        client, thread.thread_id
    )
    assert await compare_with_export(client, data, copy.thread_id) == []


async def test_chat_with_a_tool_call_and_an_interrupt_round_trips_to_a_fresh_server(
    client: AgentServerClient, fresh: AgentServerClient
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    await run(
        client,
        thread.thread_id,
        "chat",
        {"messages": [{"role": "user", "content": "weather in Paris"}]},
    )
    await run(
        client,
        thread.thread_id,
        "chat",
        {"messages": [{"role": "user", "content": "deploy to staging"}]},
    )
    original = await client.threads.get(thread.thread_id)
    assert original.status == "interrupted"
    data = json.loads(json.dumps(await export_thread(client, thread.thread_id)))
    assert data["checkpoints"][-1]["interrupts"] == [
        {"action": "deploy", "target": "staging", "question": "Deploy to staging? (yes/no)"}
    ]

    copy = await import_thread(fresh, data)
    # Same messages with the same ids, tool call and tool result included.
    assert copy.values == original.values
    messages = copy.values["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai", "human", "ai"]
    assert messages[1]["tool_calls"][0]["name"] == "get_weather"
    assert messages[-1]["tool_calls"][0]["args"] == {"target": "staging"}
    # Same steps, values and next; the thread waits at `approve` again.
    assert await lineage_summary(fresh, copy.thread_id) == await lineage_summary(
        client, thread.thread_id
    )
    assert copy.status == "interrupted"
    state = await fresh.threads.get_state(copy.thread_id)
    assert state.next == ["approve"]

    # Resuming the imported thread runs `approve` for real: it asks, and "yes" deploys.
    await run(fresh, copy.thread_id, "chat", None)
    asked = await fresh.threads.get(copy.thread_id)
    assert asked.status == "interrupted"
    async with fresh.runs.stream(
        copy.thread_id, "chat", command={"resume": "yes"}, context={"token_delay_ms": 0}
    ) as stream:
        async for _ in stream:
            pass
    final = await fresh.threads.get_state(copy.thread_id)
    assert final.values["messages"][-1]["content"] == "Deployed to staging."


async def test_counter_with_an_update_round_trips_to_a_fresh_server(
    client: AgentServerClient, fresh: AgentServerClient
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    await run(client, thread.thread_id, "counter", {"n": 2})
    await client.threads.update_state(thread.thread_id, {"n": 9, "items": [3]}, as_node="inc")
    data = await export_thread(client, thread.thread_id)
    copy = await import_thread(fresh, data)
    assert copy.values == {"n": 9, "items": [2, 3]}
    assert [(s, n) for s, _, n in await lineage_summary(fresh, copy.thread_id)] == [
        (-1, ["__start__"]),
        (0, ["inc"]),
        (1, ["dbl"]),
        (2, []),
        (3, ["dbl"]),
    ]
    assert await compare_with_export(fresh, data, copy.thread_id) == []


async def test_a_forked_thread_exports_the_latest_branch(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    await run(client, thread.thread_id, "counter", {"n": 5})
    history = ThreadHistory(client, thread.thread_id)
    at_zero = next(row for row in await history.load_all() if row.step == 0)
    await client.threads.update_state(
        thread.thread_id, {"n": 50}, as_node="inc", checkpoint_id=at_zero.checkpoint_id
    )
    data = await export_thread(client, thread.thread_id)
    assert [(c["step"], c["values"].get("n")) for c in data["checkpoints"]] == [
        (-1, None),
        (0, 5),
        (1, 50),
    ]
    copy = await import_thread(client, data)
    assert copy.values == {"n": 50, "items": []}
    assert await compare_with_export(client, data, copy.thread_id) == []

    # The other branch, by its last checkpoint.
    original_end = history.rows[0].checkpoint_id
    branch = await export_thread(client, thread.thread_id, checkpoint_id=original_end)
    assert [c["step"] for c in branch["checkpoints"]] == [-1, 0, 1, 2]
    assert branch["checkpoints"][-1]["values"] == {"n": 12, "items": [5]}
    with pytest.raises(ExportError, match=f"thread {thread.thread_id} has no checkpoint nope"):
        await export_thread(client, thread.thread_id, checkpoint_id="nope")


async def test_supersteps_with_two_updates_round_trip(client: AgentServerClient) -> None:
    two = {
        "updates": [
            {"values": {"n": 1, "items": [0]}, "as_node": "inc"},
            {"values": {"items": [9]}, "as_node": "dbl"},
        ]
    }
    thread = await client.threads.create(
        metadata={"graph_id": "counter"},
        supersteps=[{"updates": [{"values": {"n": 0}, "as_node": "__input__"}]}, two],
    )
    data = await export_thread(client, thread.thread_id)
    copy = await import_thread(client, data)
    assert copy.values == thread.values == {"n": 1, "items": [0, 9]}
    assert await compare_with_export(client, data, copy.thread_id) == []


async def test_an_empty_thread_round_trips(
    client: AgentServerClient, fresh: AgentServerClient
) -> None:
    thread = await client.threads.create(metadata={"purpose": "empty"})
    data = await export_thread(client, thread.thread_id)
    assert data["checkpoints"] == []
    copy = await import_thread(fresh, data)
    assert copy.values == {}
    assert copy.metadata == {"purpose": "empty", IMPORTED_FROM: thread.thread_id}


async def test_import_into_a_server_without_the_graph_says_so(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    await run(client, thread.thread_id, "counter", {"n": 1})
    data = await export_thread(client, thread.thread_id)
    data["source"]["graph_id"] = "no_such_graph"
    with pytest.raises(ApiError) as caught:
        await import_thread(client, data)
    assert "no_such_graph" in str(caught.value)


async def test_a_resumed_interrupt_round_trips(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    await run(
        client,
        thread.thread_id,
        "chat",
        {"messages": [{"role": "user", "content": "deploy to prod"}]},
    )
    async with client.runs.stream(
        thread.thread_id, "chat", command={"resume": "yes"}, context={"token_delay_ms": 0}
    ) as stream:
        async for _ in stream:
            pass
    data = await export_thread(client, thread.thread_id)
    # The resumed node's write is recorded like any other.
    assert [(c["step"], c["as_node"], c["next"]) for c in data["checkpoints"]] == [
        (-1, "__input__", ["__start__"]),
        (0, "__start__", ["agent"]),
        (1, "agent", ["approve"]),
        (2, "approve", ["agent"]),
        (3, "agent", []),
    ]
    copy = await import_thread(client, data)
    assert copy.status == "idle"
    assert copy.values["messages"][-1]["content"] == "Deployed to prod."
    assert copy.values == (await client.threads.get(thread.thread_id)).values
    assert await compare_with_export(client, data, copy.thread_id) == []
