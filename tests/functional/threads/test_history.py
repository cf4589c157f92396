"""`ThreadHistory` against the real agent server: order, paging, writers, interrupts, forks."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread, ThreadState
from agent_tui.threads.history import StateNotKept, ThreadHistory

TICKS = 1200  # checkpoints: the input (-1), __start__ (0), then one per tick: 1202 in all


def superstep(values: dict[str, Any], as_node: str) -> dict[str, Any]:
    return {"updates": [{"values": values, "as_node": as_node}]}


@pytest.fixture(scope="module")
async def long_thread(agent_server_url: str) -> Thread:
    """A `loop` thread of 1,202 checkpoints, built with supersteps in well under a second.

    Each tick is written as the `tick` node the previous checkpoint waits for, so the
    history reads exactly as if the graph had run.
    """
    steps = [superstep({"steps": TICKS}, "__input__"), superstep({"steps": TICKS}, "__start__")]
    steps += [superstep({"i": i}, "tick") for i in range(1, TICKS + 1)]
    async with AgentServerClient(agent_server_url) as client:
        return await client.threads.create(metadata={"graph_id": "loop"}, supersteps=steps)


class CountingClient(AgentServerClient):
    """Counts history requests (what "opens at once" costs)."""

    history_requests = 0

    def __init__(self, url: str) -> None:
        super().__init__(url)
        original = self.threads.get_history

        async def counted(thread_id: str, **kwargs: Any) -> list[ThreadState]:
            self.history_requests += 1
            return await original(thread_id, **kwargs)

        self.threads.get_history = counted  # type: ignore[method-assign]


async def test_first_page_of_a_long_thread_is_one_request(
    agent_server_url: str, long_thread: Thread
) -> None:
    async with CountingClient(agent_server_url) as client:
        history = ThreadHistory(client, long_thread.thread_id, page_size=100)
        page = await history.load_more()
    assert client.history_requests == 1
    assert [row.step for row in page] == list(range(TICKS, TICKS - 100, -1))
    assert not history.exhausted
    latest = page[0]
    assert (latest.source, latest.writers, latest.written_keys) == ("update", ("tick",), ("i",))
    assert latest.next == () and latest.writes_source == "tasks"
    assert page[1].next == ("tick",)
    # The oldest row of the page waits for its parent, which is on the next page.
    assert page[-1].wrote == "…" and page[-1].writes_source is None


async def test_paging_through_1202_checkpoints(agent_server_url: str, long_thread: Thread) -> None:
    async with CountingClient(agent_server_url) as client:
        history = ThreadHistory(client, long_thread.thread_id, page_size=300)
        rows = await history.load_all()
    assert client.history_requests == 5  # 4 full pages and a short one that ends it
    assert history.exhausted
    assert len(rows) == TICKS + 2
    assert [row.step for row in rows] == list(range(TICKS, -2, -1))
    assert len({row.checkpoint_id for row in rows}) == len(rows)
    for newer, older in itertools.pairwise(rows):
        assert newer.parent_checkpoint_id == older.checkpoint_id
    # Every row knows what wrote it once its parent has arrived.
    assert {row.writers for row in rows[:-2]} == {("tick",)}
    assert rows[-2].writers == ("__start__",) and rows[-2].written_keys == ("steps",)
    assert (rows[-1].source, rows[-1].writers, rows[-1].next) == (
        "input",
        ("__input__",),
        ("__start__",),
    )
    assert rows[-1].parent_checkpoint_id is None
    # Nothing more to load.
    assert await history.load_more() == []


async def test_a_history_that_keeps_few_states_lets_the_oldest_used_go_and_reads_them_again(
    agent_server_url: str, long_thread: Thread
) -> None:
    async with CountingClient(agent_server_url) as client:
        history = ThreadHistory(client, long_thread.thread_id, page_size=100, keep_states=150)
        rows = await history.load_all()
        # Every row, each knowing what wrote it, though most states were let go.
        assert [row.step for row in rows] == list(range(TICKS, -2, -1))
        assert {row.writers for row in rows[:-2]} == {("tick",)}
        assert history.lineage_ids() == [row.checkpoint_id for row in reversed(rows)]
        newest = rows[0]
        assert history.state(newest.checkpoint_id) is None
        with pytest.raises(StateNotKept):
            _ = newest.state
        assert history.state(rows[-1].checkpoint_id) is not None  # the last page is held

        state = await history.load_state(newest.checkpoint_id)  # read from the server
        assert state.values["i"] == TICKS
        assert newest.state is state and history.state(newest.checkpoint_id) is state
        assert await history.load_state(newest.checkpoint_id) is state  # held again


async def test_state_at_a_checkpoint_of_the_long_thread(
    client: AgentServerClient, long_thread: Thread
) -> None:
    history = ThreadHistory(client, long_thread.thread_id, page_size=500)
    await history.load_more()
    await history.load_more()
    row = next(row for row in history.rows if row.step == 700)
    state = await client.threads.get_state(long_thread.thread_id, row.checkpoint_id)
    assert state.values == {"i": 700, "steps": TICKS, "seen": []}
    assert state.next == ["tick"]
    assert state.checkpoint_id == row.checkpoint_id == row.state.checkpoint_id
    assert history.state(row.checkpoint_id) is row.state


async def counter_run(client: AgentServerClient, n: int) -> Thread:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    async with client.runs.stream(thread.thread_id, "counter", input={"n": n}) as run:
        async for _ in run:
            pass
    return thread


async def test_rows_of_a_real_run_and_an_update(client: AgentServerClient) -> None:
    thread = await counter_run(client, 5)
    await client.threads.update_state(thread.thread_id, {"n": 100, "items": [7]}, as_node="inc")
    # One row per page: every row's parent arrives only with the next page.
    history = ThreadHistory(client, thread.thread_id, page_size=1)
    rows = await history.load_all()
    assert [(r.step, r.source, r.writers, r.written_keys, r.next) for r in rows] == [
        (3, "update", (), ("n", "items"), ("dbl",)),  # update_state: keys known, node not
        (2, "loop", ("dbl",), ("n",), ()),
        (1, "loop", ("inc",), ("n", "items"), ("dbl",)),
        (0, "loop", ("__start__",), ("n",), ("inc",)),
        (-1, "input", ("__input__",), ("n",), ("__start__",)),
    ]
    assert [row.writes_source for row in rows] == ["delta", "tasks", "tasks", "tasks", "input"]
    assert [row.wrote for row in rows] == ["(n, items)", "dbl", "inc", "__start__", "__input__"]
    assert all(
        len(row.short_id) == 8 and row.checkpoint_id.endswith(row.short_id[-4:]) for row in rows
    )
    assert rows[0].as_json()["writers"] == [] and rows[1].as_json()["writers"] == ["dbl"]


async def test_a_fork_shows_in_the_history_and_its_lineage(client: AgentServerClient) -> None:
    thread = await counter_run(client, 5)
    history = ThreadHistory(client, thread.thread_id)
    rows = await history.load_all()
    at_zero = next(row for row in rows if row.step == 0)
    await client.threads.update_state(
        thread.thread_id, {"n": 50}, as_node="inc", checkpoint_id=at_zero.checkpoint_id
    )
    # The history loaded before the fork picks it up at the top.
    (fork_row,) = await history.load_newer()
    assert history.rows[0] is fork_row and len(history.rows) == 5
    at_one = next(row for row in rows if row.step == 1)
    assert [row.checkpoint_id for row in history.children_of(at_zero.checkpoint_id)] == [
        fork_row.checkpoint_id,
        at_one.checkpoint_id,
    ]
    assert await history.load_newer() == []
    history = ThreadHistory(client, thread.thread_id)
    rows = await history.load_all()
    assert [row.checkpoint_id for row in rows] == [row.checkpoint_id for row in history.rows]
    # Both branches are listed, the fork first (most recent).
    assert [(row.step, row.source) for row in rows] == [
        (1, "update"),
        (2, "loop"),
        (1, "loop"),
        (0, "loop"),
        (-1, "input"),
    ]
    assert rows[0].parent_checkpoint_id == at_zero.checkpoint_id
    assert rows[0].written_keys == ("n",)
    # The latest checkpoint's lineage skips the other branch.
    assert [s.step for s in history.lineage()] == [-1, 0, 1]
    assert [s.values["n"] for s in history.lineage()[1:]] == [5, 50]
    assert [s.step for s in history.lineage(rows[1].checkpoint_id)] == [-1, 0, 1, 2]


async def test_an_interrupt_shows_on_its_row(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    async with client.runs.stream(
        thread.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": "deploy to staging"}]},
        context={"token_delay_ms": 0},
    ) as run:
        async for _ in run:
            pass
    history = ThreadHistory(client, thread.thread_id)
    rows = await history.load_all()
    assert [(row.step, row.wrote, row.next) for row in rows] == [
        (1, "agent", ("approve",)),
        (0, "__start__", ("agent",)),
        (-1, "__input__", ("__start__",)),
    ]
    assert rows[0].interrupts == (
        {"action": "deploy", "target": "staging", "question": "Deploy to staging? (yes/no)"},
    )
    assert all(row.interrupts == () for row in rows[1:])


async def test_rows_made_after_a_resume_name_their_node_without_reopening(
    client: AgentServerClient,
) -> None:
    # The checkpoint waiting on the interrupt was loaded while its task had no result yet;
    # the resumed run's rows must still say which node wrote them, as a reload would.
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    ask = {"messages": [{"role": "user", "content": "deploy to staging"}]}
    async with client.runs.stream(
        thread.thread_id, "chat", input=ask, context={"token_delay_ms": 0}
    ) as run:
        async for _ in run:
            pass
    history = ThreadHistory(client, thread.thread_id)
    await history.load_all()
    async with client.runs.stream(
        thread.thread_id, "chat", command={"resume": "yes"}, context={"token_delay_ms": 0}
    ) as run:
        async for _ in run:
            pass
    newer = await history.load_newer()
    reopened = await ThreadHistory(client, thread.thread_id).load_all()
    assert [row.wrote for row in newer] == [row.wrote for row in reopened[: len(newer)]]
    assert "approve" in [row.wrote for row in newer]
    assert not any(row.wrote.startswith("(") for row in newer)


async def test_an_empty_thread_has_no_rows(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    history = ThreadHistory(client, thread.thread_id)
    assert await history.load_more() == []
    assert history.exhausted and history.rows == [] and history.lineage() == []


async def test_page_size_is_what_the_server_accepts(client: AgentServerClient) -> None:
    with pytest.raises(ValueError, match="page_size must be between 1 and 1000, got 0"):
        ThreadHistory(client, "t", page_size=0)
    with pytest.raises(ValueError, match="page_size must be between 1 and 1000, got 1001"):
        ThreadHistory(client, "t", page_size=1001)


async def test_a_look_for_newer_checkpoints_after_a_first_screenful_finds_none(
    agent_server_url: str, long_thread: Thread
) -> None:
    """The thread view opens on a first screenful and checks for newer checkpoints while
    the rest of the page is still to come (a loaded machine, a slow server): the older
    checkpoints of that page are not newer ones (they came at the top, out of order)."""
    async with AgentServerClient(agent_server_url) as client:
        history = ThreadHistory(client, long_thread.thread_id, page_size=100)
        first = await history.load_more(45)
        assert await history.load_newer() == []
        rest = await history.load_more(100 - 45)
    steps = [row.step for row in history.rows]
    assert steps == list(range(TICKS, TICKS - 100, -1))
    assert [row.step for row in first + rest] == steps


async def test_a_history_nested_deeper_than_the_fast_decoder_reads_opens_whole(
    client: AgentServerClient,
) -> None:
    """pydantic-core decodes most bodies (client/json_body.py) but stops at 200 levels of
    nesting; the server stores and sends up to 254. Such a checkpoint still reads whole,
    its other text too (`json` reads what pydantic-core refuses)."""
    deep: Any = "bottom"
    for _ in range(220):
        deep = [deep]
    steps = [superstep({"steps": 1}, "__input__"), superstep({"steps": 1}, "__start__")]
    steps.append(superstep({"i": 1, "seen": [deep, "naïve ☃"]}, "tick"))
    thread = await client.threads.create(metadata={"graph_id": "loop"}, supersteps=steps)
    rows = await ThreadHistory(client, thread.thread_id).load_more()
    assert [row.step for row in rows] == [1, 0, -1]
    seen = rows[0].state.values["seen"]
    assert seen[1] == "naïve ☃"
    depth, inner = 0, seen[0]
    while isinstance(inner, list):
        depth, inner = depth + 1, inner[0]
    assert (depth, inner) == (220, "bottom")
