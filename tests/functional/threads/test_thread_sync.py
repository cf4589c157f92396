"""`ThreadSync`, the thread view's headless model of its thread, against the real agent server."""

from __future__ import annotations

import pytest

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.client.models import Thread
from agent_tui.threads.history import HistoryRow
from agent_tui.tui.screens.thread_view.sync import ThreadSync


async def counter_thread(client: AgentServerClient) -> Thread:
    """A real counter run: steps -1 (input n = 5), 0, 1 (inc), 2 (dbl): 4 checkpoints."""
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    async with client.runs.stream(thread.thread_id, "counter", input={"n": 5}) as run:
        async for _ in run:
            pass
    return thread


async def test_it_opens_on_the_newest_page_and_completes_rows_as_older_pages_come(
    client: AgentServerClient,
) -> None:
    thread = await counter_thread(client)
    sync = ThreadSync(client, thread.thread_id, page_size=2)

    rows = await sync.open()
    assert [row.step for row in rows] == [2, 1]
    assert sync.thread is not None and sync.thread.status == "idle"
    # What a replay runs: the assistant the server recorded from the run.
    assert sync.assistant_id == sync.thread.metadata["assistant_id"]
    # Step 1's parent (step 0) is on the next page: what wrote step 1 is not known yet.
    assert rows[1].writes_source is None

    older, completed = await sync.load_more()
    assert [row.step for row in older] == [0, -1]
    assert [row.step for row in completed] == [1]
    assert completed[0].wrote == "inc"
    assert [row.step for row in sync.history.rows] == [2, 1, 0, -1]


async def test_a_fork_elsewhere_is_seen_and_its_checkpoint_comes_in_at_the_top(
    client: AgentServerClient,
) -> None:
    thread = await counter_thread(client)
    sync = ThreadSync(client, thread.thread_id, page_size=100)
    await sync.open()
    # The thread and its page were read side by side: the first check looks for newer
    # checkpoints whatever it finds (here none), the next ones only on a change.
    assert await sync.changed_on_server()
    assert await sync.load_newer() == []
    assert not await sync.changed_on_server()

    head = sync.history.rows[0]
    forked = await client.threads.update_state(
        thread.thread_id, {"n": 100}, as_node="dbl", checkpoint_id=head.checkpoint_id
    )
    assert await sync.changed_on_server()
    fresh = await sync.load_newer()
    assert [row.checkpoint_id for row in fresh] == [forked.checkpoint.checkpoint_id]
    assert sync.history.rows[0].state.values["n"] == 100
    assert len(sync.history.rows) == 5


async def test_an_empty_thread_gets_its_first_checkpoints(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    sync = ThreadSync(client, thread.thread_id, page_size=100)
    assert await sync.open() == []
    assert sync.history.exhausted
    assert sync.assistant_id == "counter"  # no run yet: the graph in the metadata

    async with client.runs.stream(thread.thread_id, "counter", input={"n": 1}) as run:
        async for _ in run:
            pass
    fresh = await sync.load_newer()
    assert [row.step for row in fresh] == [2, 1, 0, -1]


async def test_a_missing_thread_raises_and_loads_nothing(client: AgentServerClient) -> None:
    sync = ThreadSync(client, "00000000-0000-0000-0000-000000000000", page_size=100)
    with pytest.raises(NotFound):
        await sync.open()
    assert sync.thread is None and sync.history.rows == []


async def test_a_change_made_while_the_newer_checkpoints_load_is_seen_by_the_next_check(
    client: AgentServerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run elsewhere that ends while the view loads its first checkpoints: the view's
    next check must still see the thread changed, or the last checkpoints never come in."""
    thread = await counter_thread(client)
    sync = ThreadSync(client, thread.thread_id, page_size=100)
    await sync.open()
    head = sync.history.rows[0]
    load_newer = sync.history.load_newer

    async def load_then_fork_elsewhere() -> list[HistoryRow]:
        fresh = await load_newer()
        # Someone else's change lands after the history read, before the view is done.
        await client.threads.update_state(
            thread.thread_id, {"n": 100}, as_node="dbl", checkpoint_id=head.checkpoint_id
        )
        return fresh

    monkeypatch.setattr(sync.history, "load_newer", load_then_fork_elsewhere)
    assert await sync.load_newer() == []
    monkeypatch.undo()
    assert await sync.changed_on_server()
    fresh = await sync.load_newer()
    assert [row.state.values["n"] for row in fresh] == [100]
