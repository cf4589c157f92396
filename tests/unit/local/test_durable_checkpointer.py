"""The embedded server's SQLite checkpointer: what langgraph-api asks beyond langgraph's
`SqliteSaver` (a run's checkpoints deleted for ``rollback``, pruning), in place."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

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


async def test_writes_are_committed_as_they_are_made(tmp_path: Path) -> None:
    made = saver(tmp_path)
    first = await put(made, "a", "run-1", None)
    # Another connection (as after a crash and a restart) sees it at once.
    again = saver(tmp_path)
    assert await ids(again, "a") == [first]


async def test_a_commit_never_copies_the_log_into_the_database(tmp_path: Path) -> None:
    """SQLite's own checkpoint of the write-ahead log (an fsync, milliseconds) is left to
    `WalCheckpoints`, a thread of its own, which does copy it."""
    made = saver(tmp_path)
    database = tmp_path / "c.sqlite"
    empty = database.stat().st_size
    parent = None
    for number in range(1500):  # SQLite's default checkpoints every 1,000 pages
        parent = await put(made, f"thread-{number}", "run", parent)
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
