"""The embedded server's SQLite checkpointer: what langgraph-api asks beyond langgraph's
`SqliteSaver` (a run's checkpoints deleted for ``rollback``, pruning), in place."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint

from agent_tui.local.durable_checkpointer import DurableSqliteSaver, WalCheckpoints


def saver(tmp_path: Path) -> DurableSqliteSaver:
    made = DurableSqliteSaver(sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False))
    made.setup()
    return made


async def put(made: DurableSqliteSaver, thread: str, run: str, parent: str | None) -> str:
    config: RunnableConfig = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    if parent is not None:
        config["configurable"]["checkpoint_id"] = parent
    checkpoint = empty_checkpoint()
    stored = await made.aput(config, checkpoint, {"run_id": run, "step": 0}, {})
    await made.aput_writes(stored, [("messages", "hi")], task_id="t1")
    return str(stored["configurable"]["checkpoint_id"])


async def ids(made: DurableSqliteSaver, thread: str) -> list[str]:
    config: Any = {"configurable": {"thread_id": thread}}
    return [item.config["configurable"]["checkpoint_id"] async for item in made.alist(config)]


async def test_a_rolled_back_runs_checkpoints_go_and_the_rest_stay(tmp_path: Path) -> None:
    made = saver(tmp_path)
    first = await put(made, "a", "run-1", None)
    await put(made, "a", "run-2", first)
    await put(made, "b", "run-2", None)
    await made.adelete_for_runs(["run-2"])
    assert await ids(made, "a") == [first]
    assert await ids(made, "b") == []
    kept = await made.aget_tuple({"configurable": {"thread_id": "a", "checkpoint_ns": ""}})
    assert kept is not None and kept.config["configurable"]["checkpoint_id"] == first
    assert [w[1] for w in kept.pending_writes or []] == ["messages"]


async def test_pruning_keeps_each_threads_latest_checkpoint(tmp_path: Path) -> None:
    made = saver(tmp_path)
    parent = None
    for step in range(4):
        parent = await put(made, "a", f"run-{step}", parent)
    latest = parent
    await put(made, "b", "run-x", None)
    await made.aprune(["a"])
    assert await ids(made, "a") == [latest]
    assert len(await ids(made, "b")) == 1  # not asked for
    await made.aprune(["a", "b"], strategy="delete")
    assert await ids(made, "a") == [] and await ids(made, "b") == []


async def test_writes_wait_for_the_flush_an_answer_makes(tmp_path: Path) -> None:
    """One COMMIT per answer, not per write: another connection (as after a crash and a
    restart) sees the writes once flushed; the saver's own connection at once."""
    made = saver(tmp_path)
    made.FLUSH_WITHIN = 60.0  # no timer's flush during the test
    first = await put(made, "a", "run-1", None)
    second = await put(made, "a", "run-1", first)
    again = saver(tmp_path)
    assert await ids(again, "a") == []
    assert await ids(made, "a") == [second, first]
    made.flush()
    assert await ids(again, "a") == [second, first]


async def test_writes_nobody_answers_about_are_committed_soon(tmp_path: Path) -> None:
    made = saver(tmp_path)
    made.FLUSH_WITHIN = 0.05
    first = await put(made, "a", "run-1", None)
    again = saver(tmp_path)
    deadline = time.monotonic() + 30
    while await ids(again, "a") != [first]:
        assert time.monotonic() < deadline, "the write was never committed"
        await asyncio.sleep(0.01)


def test_writes_without_an_event_loop_are_committed_at_once(tmp_path: Path) -> None:
    made = saver(tmp_path)
    config: RunnableConfig = {"configurable": {"thread_id": "a", "checkpoint_ns": ""}}
    stored = made.put(config, empty_checkpoint(), {"run_id": "run-1", "step": 0}, {})
    again = saver(tmp_path)
    assert again.get_tuple(stored) is not None


async def test_a_flush_that_cannot_save_raises_and_keeps_the_writes(tmp_path: Path) -> None:
    made = saver(tmp_path)
    made.FLUSH_WITHIN = 60.0
    first = await put(made, "a", "run-1", None)
    real = made.conn
    made.conn = FailingCommit(real)  # type: ignore[assignment]
    with pytest.raises(OSError, match="checkpoints"):
        made.flush()
    made.conn = real
    made.flush()  # the next flush saves them
    assert await ids(saver(tmp_path), "a") == [first]


class FailingCommit:
    """A connection whose COMMIT fails (what a full disk does to it)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.in_transaction = conn.in_transaction

    def commit(self) -> None:
        raise sqlite3.OperationalError("database or disk is full")


async def test_a_commit_never_copies_the_log_into_the_database(tmp_path: Path) -> None:
    """SQLite's own checkpoint of the write-ahead log (an fsync, milliseconds) is left to
    `WalCheckpoints`, a thread of its own, which does copy it."""
    made = saver(tmp_path)
    database = tmp_path / "c.sqlite"
    empty = database.stat().st_size
    parent = None
    for number in range(1500):  # SQLite's default checkpoints every 1,000 pages
        parent = await put(made, f"thread-{number}", "run", parent)
        made.flush()  # a commit, as before each answer
    assert database.stat().st_size == empty
    assert (tmp_path / "c.sqlite-wal").stat().st_size > 4_000_000

    checkpoints = WalCheckpoints(database)
    checkpoints.EVERY = 0.01
    checkpoints.start()
    try:
        deadline = time.monotonic() + 30
        while database.stat().st_size == empty:
            assert time.monotonic() < deadline, "the log was never copied into the database"
            await asyncio.sleep(0.01)  # the thread works on its own: nothing to await
    finally:
        checkpoints.stop()
    assert len(await ids(made, "thread-1499")) == 1
