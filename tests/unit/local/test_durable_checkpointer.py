"""The embedded server's checkpointer: langgraph's in-memory saver whose changes are made
durable at each flush (a log, applied to SQLite by a thread), all there in the next process
after a crash; and what langgraph-api asks beyond langgraph's savers (a run's checkpoints
deleted for ``rollback``, pruning)."""

from __future__ import annotations

import asyncio
import errno
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

from agent_tui.local import checkpoint_log, unguarded
from agent_tui.local.checkpoint_log import Applier, CheckpointLog
from agent_tui.local.durable_checkpointer import DurableMemorySaver, open_saver

Opener = Callable[[Path], DurableMemorySaver]


@pytest.fixture
def opened() -> Iterator[Opener]:
    """Opens a saver on a folder, as a server process does; its log closed at the end."""
    logs: list[CheckpointLog] = []

    def open_(folder: Path) -> DurableMemorySaver:
        made, log = open_saver(folder)
        logs.append(log)
        return made

    yield open_
    for log in logs:
        log.close()


@pytest.fixture
def after_crash(tmp_path: Path, opened: Opener) -> Callable[[Path], DurableMemorySaver]:
    """What a new process finds in a folder now (a copy of its files, opened)."""
    copies = iter(range(1000))

    def reopen(folder: Path) -> DurableMemorySaver:
        copy = tmp_path / f"after-crash-{next(copies)}"
        shutil.copytree(folder, copy)
        return opened(copy)

    return reopen


async def put(made: Any, thread: str, run: str, parent: str | None, count: int = 0) -> str:
    """A checkpoint of ``count`` (a new version of the channel) and a pending write."""
    config: RunnableConfig = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    if parent is not None:
        config["configurable"]["checkpoint_id"] = parent
    checkpoint = empty_checkpoint()
    version = f"{count:032}.0"
    checkpoint["channel_values"] = {"count": count}
    checkpoint["channel_versions"] = {"count": version}
    stored = await made.aput(config, checkpoint, {"run_id": run, "step": count}, {"count": version})
    await made.aput_writes(stored, [("messages", f"hi {count}"), ("count", count)], task_id="t1")
    return str(stored["configurable"]["checkpoint_id"])


async def ids(made: Any, thread: str) -> list[str]:
    config: Any = {"configurable": {"thread_id": thread}}
    return [item.config["configurable"]["checkpoint_id"] async for item in made.alist(config)]


async def latest(made: Any, thread: str) -> tuple[Any, list[tuple[str, Any]]]:
    """The thread's newest checkpoint's values and pending writes."""
    found = await made.aget_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
    assert found is not None, f"no checkpoint on {thread}"
    return found.checkpoint["channel_values"], [(w[1], w[2]) for w in found.pending_writes]


def in_tables(folder: Path, thread: str) -> int:
    """How many of the thread's checkpoints the SQLite tables hold (not the log)."""
    with sqlite3.connect(folder / "checkpoints.sqlite") as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM checkpoint_rows WHERE thread_id = ?", (thread,)
        ).fetchone()
    return int(row[0])


async def test_every_checkpoint_is_there_with_its_values_after_a_crash(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    made = opened(tmp_path / "data")
    parent = None
    for count in range(3):
        parent = await put(made, "a", "run-1", parent, count)
    made.flush()
    again = after_crash(tmp_path / "data")
    assert await ids(again, "a") == await ids(made, "a")
    assert len(await ids(again, "a")) == 3
    assert await latest(again, "a") == ({"count": 2}, [("messages", "hi 2"), ("count", 2)])
    history = [item async for item in again.alist({"configurable": {"thread_id": "a"}})]
    assert [item.checkpoint["channel_values"] for item in history] == [
        {"count": 2},
        {"count": 1},
        {"count": 0},
    ]
    assert history[0].parent_config is not None
    parent_id = history[0].parent_config["configurable"]["checkpoint_id"]
    assert parent_id == history[1].config["configurable"]["checkpoint_id"]


async def test_the_log_is_replayed_when_the_tables_lack_it(
    tmp_path: Path, opened: Opener, after_crash: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash before the applier's thread copied the flushed changes into SQLite."""
    monkeypatch.setattr(Applier, "start", lambda self, applied: None)  # no thread
    made = opened(tmp_path / "data")
    first = await put(made, "a", "run-1", None)
    made.flush()
    assert in_tables(tmp_path / "data", "a") == 0
    monkeypatch.undo()
    again = after_crash(tmp_path / "data")
    assert await ids(again, "a") == [first]
    assert in_tables(tmp_path / "after-crash-0", "a") == 1  # applied at start


async def test_the_applier_copies_flushed_changes_into_the_tables(
    tmp_path: Path, opened: Opener
) -> None:
    made = opened(tmp_path / "data")
    parent = None
    for count in range(250):  # more rows than one statement takes
        parent = await put(made, "a", "run-1", parent, count)
    made.flush()
    deadline = time.monotonic() + 30
    while in_tables(tmp_path / "data", "a") != 250:
        assert time.monotonic() < deadline, "the tables never got the checkpoints"
        await asyncio.sleep(0.02)  # the thread works on its own: nothing to await
    with sqlite3.connect(tmp_path / "data" / "checkpoints.sqlite") as conn:
        (writes,) = conn.execute("SELECT COUNT(*) FROM checkpoint_writes").fetchone()
    assert writes == 500


async def test_a_torn_last_block_loses_only_itself(
    tmp_path: Path, opened: Opener, after_crash: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Applier, "start", lambda self, applied: None)
    made = opened(tmp_path / "data")
    first = await put(made, "a", "run-1", None)
    made.flush()
    await put(made, "b", "run-2", None)
    made.flush()
    log = tmp_path / "data" / "checkpoints.log-0"
    log.write_bytes(log.read_bytes()[:-10])  # the second block cut short by a crash
    again = after_crash(tmp_path / "data")
    assert await ids(again, "a") == [first]
    assert await ids(again, "b") == []


async def test_the_log_moves_to_its_other_file_once_the_first_is_applied(
    tmp_path: Path, opened: Opener, after_crash: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CheckpointLog, "SWITCH_AT", 2000)
    monkeypatch.setattr(Applier, "EVERY", 0.01)
    made = opened(tmp_path / "data")
    folder = tmp_path / "data"
    written: list[str] = []
    deadline = time.monotonic() + 60
    while not (folder / "checkpoints.log-1").exists() or len(written) < 30:
        assert time.monotonic() < deadline, "the log never moved to its other file"
        written.append(await put(made, f"thread-{len(written)}", "run", None))
        made.flush()
        await asyncio.sleep(0.005)  # time for the applier's thread
    again = after_crash(folder)
    for number, checkpoint_id in enumerate(written):
        assert await ids(again, f"thread-{number}") == [checkpoint_id]


async def test_a_rolled_back_runs_checkpoints_go_and_the_rest_stay(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    made = opened(tmp_path / "data")
    first = await put(made, "a", "run-1", None)
    await put(made, "a", "run-2", first, 1)
    await put(made, "b", "run-2", None)
    made.flush()
    restarted = after_crash(tmp_path / "data")  # the run ids come back at start too
    for each in (made, restarted):
        await each.adelete_for_runs(["run-2"])
        assert await ids(each, "a") == [first]
        assert await ids(each, "b") == []
        assert await latest(each, "a") == ({"count": 0}, [("messages", "hi 0"), ("count", 0)])
    made.flush()
    assert await ids(after_crash(tmp_path / "data"), "a") == [first]


async def test_changes_keep_their_order_within_one_flush(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    """A thread deleted and made again before the flush: the new checkpoint is kept."""
    made = opened(tmp_path / "data")
    made.FLUSH_WITHIN = 60.0
    await put(made, "a", "run-1", None, 1)
    await made.adelete_thread("a")
    again = await put(made, "a", "run-2", None, 2)
    made.flush()
    restarted = after_crash(tmp_path / "data")
    assert await ids(restarted, "a") == [again]
    assert (await latest(restarted, "a"))[0] == {"count": 2}


async def test_pruning_keeps_each_threads_latest_checkpoint(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    made = opened(tmp_path / "data")
    parent = None
    for step in range(4):
        parent = await put(made, "a", f"run-{step}", parent, step)
    newest = parent
    await put(made, "b", "run-x", None)
    await made.aprune(["a"])
    assert await ids(made, "a") == [newest]
    assert await latest(made, "a") == ({"count": 3}, [("messages", "hi 3"), ("count", 3)])
    assert len(await ids(made, "b")) == 1  # not asked for
    made.flush()
    again = after_crash(tmp_path / "data")
    assert await ids(again, "a") == [newest]
    assert (await latest(again, "a"))[0] == {"count": 3}
    assert len(again.blobs) == 2  # the old values went with their checkpoints
    await made.aprune(["a", "b"], strategy="delete")
    assert await ids(made, "a") == [] and await ids(made, "b") == []


async def test_changes_wait_for_the_flush_an_answer_makes(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    """One write per answer, not per change: a new process sees the changes once
    flushed; the saver itself at once."""
    made = opened(tmp_path / "data")
    made.FLUSH_WITHIN = 60.0  # no timer's flush during the test
    first = await put(made, "a", "run-1", None)
    second = await put(made, "a", "run-1", first)
    assert await ids(after_crash(tmp_path / "data"), "a") == []
    assert await ids(made, "a") == [second, first]
    made.flush()
    assert await ids(after_crash(tmp_path / "data"), "a") == [second, first]


async def test_changes_nobody_answers_about_are_flushed_soon(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    made = opened(tmp_path / "data")
    made.FLUSH_WITHIN = 0.05
    first = await put(made, "a", "run-1", None)
    deadline = time.monotonic() + 30
    while await ids(after_crash(tmp_path / "data"), "a") != [first]:
        assert time.monotonic() < deadline, "the change was never flushed"
        await asyncio.sleep(0.01)


def test_changes_without_an_event_loop_are_flushed_at_once(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    made = opened(tmp_path / "data")
    config: RunnableConfig = {"configurable": {"thread_id": "a", "checkpoint_ns": ""}}
    stored = made.put(config, empty_checkpoint(), {"run_id": "run-1", "step": 0}, {})
    assert after_crash(tmp_path / "data").get_tuple(stored) is not None


async def test_a_flush_that_cannot_save_raises_and_keeps_the_changes(
    tmp_path: Path, opened: Opener, after_crash: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = opened(tmp_path / "data")
    made.FLUSH_WITHIN = 60.0
    first = await put(made, "a", "run-1", None)

    def full_disk(*args: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(unguarded, "pwrite", full_disk)
    with pytest.raises(OSError, match="checkpoints: No space left on device"):
        made.flush()
    monkeypatch.undo()
    assert await ids(after_crash(tmp_path / "data"), "a") == []
    made.flush()  # the next flush saves them
    again = after_crash(tmp_path / "data")
    assert await ids(again, "a") == [first]
    assert await latest(again, "a") == ({"count": 0}, [("messages", "hi 0"), ("count", 0)])


async def test_the_applier_keeps_what_it_cannot_copy_and_tries_again(
    tmp_path: Path, opened: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database full for a while: nothing given to the thread is lost."""
    folder = tmp_path / "data"
    failures: list[int] = []
    real_apply = checkpoint_log.apply

    def full_at_first(conn: sqlite3.Connection, journal: Any, sequence: int) -> None:
        if len(failures) < 3:
            failures.append(sequence)
            raise sqlite3.OperationalError("database or disk is full")
        real_apply(conn, journal, sequence)

    monkeypatch.setattr(Applier, "EVERY", 0.01)
    made = opened(folder)
    monkeypatch.setattr(checkpoint_log, "apply", full_at_first)
    await put(made, "a", "run-1", None)
    made.flush()
    await put(made, "b", "run-1", None)
    made.flush()
    deadline = time.monotonic() + 60
    while in_tables(folder, "a") != 1 or in_tables(folder, "b") != 1:
        assert time.monotonic() < deadline, "the checkpoints never reached the tables"
        await asyncio.sleep(0.02)
    assert len(failures) == 3


async def test_checkpoints_of_the_earlier_sqlite_tables_are_copied_in(
    tmp_path: Path, opened: Opener, after_crash: Opener
) -> None:
    """A data folder from the version that kept langgraph's `SqliteSaver` tables."""
    folder = tmp_path / "data"
    folder.mkdir()
    conn = sqlite3.connect(folder / "checkpoints.sqlite", check_same_thread=False)
    earlier = SqliteSaver(conn)
    parent = None
    for count in range(3):
        parent = await asyncio.to_thread(put_sync, earlier, "a", parent, count)
    await asyncio.to_thread(put_sync, earlier, "b", None, 7)
    conn.close()

    made = opened(folder)
    assert len(await ids(made, "a")) == 3
    assert await latest(made, "a") == ({"count": 2}, [("messages", "hi 2"), ("count", 2)])
    assert (await latest(made, "b"))[0] == {"count": 7}
    again = after_crash(folder)  # copied once, and kept
    assert len(await ids(again, "a")) == 3 and len(await ids(again, "b")) == 1
    with sqlite3.connect(folder / "checkpoints.sqlite") as check:
        names = {row[0] for row in check.execute("SELECT name FROM sqlite_master")}
    assert "checkpoints" not in names and "writes" not in names


def put_sync(made: SqliteSaver, thread: str, parent: str | None, count: int) -> str:
    return asyncio.run(put(Synced(made), thread, "run-1", parent, count))


class Synced:
    """`SqliteSaver`'s sync methods behind the async names `put` calls (its own async ones
    refuse to run)."""

    def __init__(self, made: SqliteSaver) -> None:
        self._made = made

    async def aput(self, *args: Any) -> Any:
        return self._made.put(*args)

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        self._made.put_writes(*args, **kwargs)
