"""`client.threads` against the real agent server (counter test graph: `inc` then `dbl`)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agent_tui.client import AgentServerClient, NotFound, PartialFailure, ValidationFailed
from agent_tui.client.models import Thread

COUNTER = "counter"


def superstep(values: dict[str, Any], as_node: str) -> dict[str, Any]:
    return {"updates": [{"values": values, "as_node": as_node}]}


def counting_supersteps(count: int) -> list[dict[str, Any]]:
    """`count` checkpoints after the input: n goes 1, 2, 3 … and each step appends to items."""
    steps = [superstep({"n": 0}, "__input__")]
    steps += [superstep({"n": i, "items": [i]}, "inc") for i in range(1, count + 1)]
    return steps


async def test_create_empty_thread_is_idle_with_empty_values(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    assert thread.status == "idle"
    assert thread.metadata == {}
    assert thread.values == {}
    fetched = await client.threads.get(thread.thread_id)
    assert fetched.thread_id == thread.thread_id


async def test_create_with_supersteps_builds_the_state(client: AgentServerClient) -> None:
    thread = await client.threads.create(
        metadata={"graph_id": COUNTER}, supersteps=counting_supersteps(3)
    )
    assert thread.values == {"n": 3, "items": [1, 2, 3]}
    assert thread.metadata["graph_id"] == COUNTER
    state = await client.threads.get_state(thread.thread_id)
    assert state.values == {"n": 3, "items": [1, 2, 3]}


async def test_supersteps_without_a_graph_id_fail_with_the_servers_reason(
    client: AgentServerClient,
) -> None:
    # The server answers 201 with an error body here; the client must not call it a thread.
    with pytest.raises(PartialFailure) as caught:
        await client.threads.create(supersteps=counting_supersteps(1))
    assert "has no assigned graph ID" in str(caught.value)


async def counter_thread(client: AgentServerClient, steps: int, **metadata: Any) -> Thread:
    return await client.threads.create(
        metadata={"graph_id": COUNTER, **metadata}, supersteps=counting_supersteps(steps)
    )


async def test_history_is_most_recent_first_with_steps(client: AgentServerClient) -> None:
    thread = await counter_thread(client, 4)
    history = await client.threads.get_history(thread.thread_id, limit=100)
    # The `__input__` superstep is step -1 (source `input`); each update is one step.
    assert [state.step for state in history] == [3, 2, 1, 0, -1]
    assert [state.source for state in history] == ["update"] * 4 + ["input"]
    assert history[0].values["n"] == 4
    assert all(state.checkpoint_id for state in history)
    # Each checkpoint's parent is the next one down the list.
    for newer, older in itertools.pairwise(history):
        assert newer.parent_checkpoint_id == older.checkpoint_id


async def test_history_pages_with_before(client: AgentServerClient) -> None:
    thread = await counter_thread(client, 12)
    full = await client.threads.get_history(thread.thread_id, limit=100)
    pages: list[list[str | None]] = []
    before = None
    while True:
        page = await client.threads.get_history(thread.thread_id, limit=5, before=before)
        if not page:
            break
        pages.append([state.checkpoint_id for state in page])
        before = page[-1].checkpoint_id
    assert [len(page) for page in pages][:2] == [5, 5]
    assert [cid for page in pages for cid in page] == [state.checkpoint_id for state in full]


async def test_a_new_thread_has_an_empty_state(client: AgentServerClient) -> None:
    # The server sends values, metadata and checkpoint as null before any run.
    thread = await client.threads.create(metadata={"graph_id": COUNTER})
    state = await client.threads.get_state(thread.thread_id)
    assert state.values == {}
    assert state.checkpoint_id is None
    assert state.next == [] and state.metadata == {}


async def test_state_at_a_checkpoint(client: AgentServerClient) -> None:
    thread = await counter_thread(client, 3)
    history = await client.threads.get_history(thread.thread_id, limit=100)
    at_two = next(state for state in history if state.values.get("n") == 2)
    assert at_two.checkpoint_id is not None
    state = await client.threads.get_state(thread.thread_id, at_two.checkpoint_id)
    assert state.values == {"n": 2, "items": [1, 2]}
    assert state.checkpoint_id == at_two.checkpoint_id


async def test_update_state_and_fork_from_a_checkpoint(client: AgentServerClient) -> None:
    thread = await counter_thread(client, 3)
    history = await client.threads.get_history(thread.thread_id, limit=100)
    at_one = next(state for state in history if state.values.get("n") == 1)
    assert at_one.checkpoint_id is not None

    forked = await client.threads.update_state(
        thread.thread_id, {"n": 50}, as_node="inc", checkpoint_id=at_one.checkpoint_id
    )
    assert forked.checkpoint.checkpoint_id
    fork_state = await client.threads.get_state(thread.thread_id, forked.checkpoint.checkpoint_id)
    assert fork_state.values == {"n": 50, "items": [1]}
    assert fork_state.parent_checkpoint_id == at_one.checkpoint_id
    # The fork is the thread's latest state now.
    assert (await client.threads.get_state(thread.thread_id)).values == {"n": 50, "items": [1]}

    await client.threads.update_state(thread.thread_id, {"items": [7]}, as_node="dbl")
    latest = await client.threads.get_state(thread.thread_id)
    assert latest.values == {"n": 50, "items": [1, 7]}
    assert latest.metadata["source"] == "update"


async def test_copy_keeps_the_history_under_a_new_id(client: AgentServerClient) -> None:
    original = await client.threads.create(
        metadata={"graph_id": COUNTER}, supersteps=counting_supersteps(3)
    )
    copy = await client.threads.copy(original.thread_id)
    assert copy.thread_id != original.thread_id
    assert copy.metadata == original.metadata
    old = await client.threads.get_history(original.thread_id, limit=100)
    new = await client.threads.get_history(copy.thread_id, limit=100)
    assert [(s.step, s.values) for s in new] == [(s.step, s.values) for s in old]
    # Independent: changing the copy leaves the original alone.
    await client.threads.update_state(copy.thread_id, {"n": 99}, as_node="inc")
    assert (await client.threads.get_state(original.thread_id)).values["n"] == 3


async def test_search_filters_sorts_and_limits(client: AgentServerClient) -> None:
    tag = {"suite": "search-test"}
    made = [await counter_thread(client, 1, **tag, i=i) for i in range(5)]
    await client.threads.create(metadata={"suite": "other"})

    found = await client.threads.search(metadata=tag, limit=100)
    assert {t.thread_id for t in found} == {t.thread_id for t in made}

    exact = await client.threads.search(metadata={**tag, "i": 3}, limit=100)
    assert [t.metadata["i"] for t in exact] == [3]

    oldest_first = await client.threads.search(
        metadata=tag, sort_by="created_at", sort_order="asc", limit=100
    )
    assert [t.thread_id for t in oldest_first] == [t.thread_id for t in made]
    newest_first = await client.threads.search(
        metadata=tag, sort_by="created_at", sort_order="desc", limit=2
    )
    assert [t.thread_id for t in newest_first] == [made[4].thread_id, made[3].thread_id]
    second_page = await client.threads.search(
        metadata=tag, sort_by="created_at", sort_order="desc", limit=2, offset=2
    )
    assert [t.thread_id for t in second_page] == [made[2].thread_id, made[1].thread_id]

    assert await client.threads.search(metadata=tag, status="busy") == []
    # The last superstep leaves `dbl` pending, so these threads are `interrupted`.
    assert len(await client.threads.search(metadata=tag, status="interrupted", limit=100)) == 5
    assert await client.threads.search(metadata=tag, status="idle") == []
    assert await client.threads.count(metadata=tag) == 5


async def test_bad_search_value_names_the_allowed_values(client: AgentServerClient) -> None:
    with pytest.raises(ValidationFailed) as caught:
        await client.threads.search(status="bogus")
    assert "idle" in str(caught.value)
    assert "bogus" in str(caught.value)


async def test_unknown_thread_is_not_found_and_malformed_id_is_invalid(
    client: AgentServerClient,
) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(NotFound) as caught:
        await client.threads.get(missing)
    assert f"Thread with ID {missing} not found" in str(caught.value)
    with pytest.raises(ValidationFailed) as invalid:
        await client.threads.get("not-a-uuid")
    assert "must be a UUID" in str(invalid.value)


async def test_delete_removes_the_thread(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    await client.threads.delete(thread.thread_id)
    with pytest.raises(NotFound):
        await client.threads.get(thread.thread_id)


async def test_update_metadata_merges_into_the_thread(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"owner": "ana"})
    updated = await client.threads.update(thread.thread_id, metadata={"ticket": "T-1"})
    assert updated.metadata == {"owner": "ana", "ticket": "T-1"}
    assert (await client.threads.get(thread.thread_id)).metadata == updated.metadata
