"""The commit files of the embedded server's stores: the newest whole commit comes back,
a commit cut short by a crash never does, and the runtime's newer file wins."""

from __future__ import annotations

import asyncio
import os
import pickle
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.local.durable_commits import (
    FLUSHES,
    CommitError,
    Committer,
    _Log,
    commit_file,
    newest_commits,
    restore_committed,
)
from agent_tui.local.durable_replay import replay
from agent_tui.local.durable_runtime import changed_threads
from agent_tui.local.durable_snapshots import Snapshotter, encode


@pytest.fixture
def in_folder(tmp_path: Path) -> Iterator[Path]:
    """The server's working folder (the committer names files relative to it)."""
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)


def loaded(filename: str) -> object:
    with open(filename, "rb") as file:
        return pickle.load(file)


def test_the_newest_commit_is_restored_where_the_runtime_loads_it(in_folder: Path) -> None:
    store: dict[str, list[int]] = {"threads": [1]}
    committer = Committer(lambda: [("ops.pckl", store)])
    committer.commit()
    store["threads"].append(2)
    committer.commit()
    assert not Path("ops.pckl").exists()  # only the commit files are written

    assert newest_commits(["ops.pckl"]) == {"ops.pckl": (2, 0)}
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"threads": [1, 2]}


def test_a_commit_cut_short_leaves_the_one_before(in_folder: Path) -> None:
    store: dict[str, list[int]] = {"threads": list(range(100))}
    committer = Committer(lambda: [("ops.pckl", store)])
    committer.commit()
    store["threads"].append(100)
    committer.commit()
    # A crash in the middle of the second write: only part of it reached the file.
    log = Path(commit_file("ops.pckl", 0))
    log.write_bytes(log.read_bytes()[:-5])

    assert newest_commits(["ops.pckl"]) == {"ops.pckl": (1, 0)}
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"threads": list(range(100))}
    # The next process starts its log in the other file, never over the good one.
    again = Committer(lambda: [("ops.pckl", store)], {"ops.pckl": (1, 0)})
    again.commit()
    assert newest_commits(["ops.pckl"]) == {"ops.pckl": (2, 1)}
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"threads": [*range(100), 100]}


def test_a_shorter_commit_over_a_longer_one_reads_back_whole(in_folder: Path) -> None:
    store: dict[str, str] = {"text": "x" * 5000}
    committer = Committer(lambda: [("ops.pckl", store)])
    committer.commit()
    store["text"] = "y"
    committer.commit()
    store["text"] = "z"
    committer.commit()  # over the first, 5,000 bytes longer
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"text": "z"}


def test_the_runtimes_own_newer_file_is_kept(in_folder: Path) -> None:
    committer = Committer(lambda: [("ops.pckl", {"threads": ["committed"]})])
    committer.commit()
    # A clean stop: the runtime writes its own file after the last commit.
    with open("ops.pckl", "wb") as file:
        pickle.dump({"threads": ["saved at stop"]}, file)
    later = os.path.getmtime(commit_file("ops.pckl", 0)) + 1
    os.utime("ops.pckl", (later, later))
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"threads": ["saved at stop"]}


def test_a_failed_write_is_refused_and_told_once(
    in_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = {"threads": [1]}
    committer = Committer(lambda: [(os.path.join("gone", "ops.pckl"), store)])
    with pytest.raises(CommitError) as refused:
        committer.commit()
    assert "No such file or directory" in str(refused.value.strerror)
    with pytest.raises(CommitError):
        committer.commit()
    told = [r for r in caplog.records if "cannot save the server's data" in r.getMessage()]
    assert len(told) == 1
    os.mkdir("gone")
    committer.commit()
    assert committer.problem is None
    assert any("saved again" in r.getMessage() for r in caplog.records)


def test_a_commit_flushes_the_checkpoints_first_and_fails_with_them(in_folder: Path) -> None:
    done: list[str] = []
    full = True

    def flush() -> None:
        if full:
            raise OSError(28, "database or disk is full")
        done.append("flushed")

    committer = Committer(lambda: [("ops.pckl", {"n": len(done)})])
    FLUSHES.append(flush)
    try:
        with pytest.raises(CommitError) as refused:
            committer.commit()
        assert "disk is full" in str(refused.value.strerror)
        full = False
        committer.commit()
    finally:
        FLUSHES.remove(flush)
    assert done == ["flushed"]
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"n": 1}  # read after the flush


async def test_requests_made_together_share_one_commit(in_folder: Path) -> None:
    writes: list[int] = []
    store = {"n": 0}

    def sources() -> list[tuple[str, object]]:
        writes.append(store["n"])
        return [("ops.pckl", store)]

    committer = Committer(sources)
    first = committer.request()
    store["n"] = 1  # changed after the first request, before the commit ran
    second = committer.request()
    background = committer.request(urgent=False)
    await asyncio.gather(first, second, background)
    assert writes == [1]  # one commit, taken after every change asked for
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"n": 1}


def test_records_changed_by_setting_a_key_are_saved_and_the_rest_reused(
    in_folder: Path,
) -> None:
    ops = os.path.join(".langgraph_api", ".langgraph_ops.pckl")  # kept in pieces
    os.mkdir(".langgraph_api")
    runs = [{"run_id": n, "status": "pending", "kwargs": {"n": n}} for n in range(50)]
    store = {"runs": runs, "threads": [], "crons": []}
    snapshots = Snapshotter("records")
    first = snapshots.changes(store)
    assert first is not None and len(first) == 1 + 50  # the head, then every record
    snapshots.written()
    runs[7]["status"] = "success"
    runs[9].update({"status": "error", "kwargs": {"n": -9}})
    runs.append({"run_id": 50, "status": "pending", "kwargs": {}})
    second = snapshots.changes(store)
    assert second is not None and len(second) == 1 + 3  # the two changed, the new one
    snapshots.written()
    assert snapshots.changes(store) is None  # nothing changed since

    committer = Committer(lambda: [(ops, store)])
    committer.commit()
    runs[3]["status"] = "running"
    committer.commit()
    restore_committed([ops])
    assert loaded(ops) == store


@pytest.mark.parametrize("threads", [None, {"a"}])
def test_changes_whose_write_failed_are_found_again(threads: set[str] | None) -> None:
    """A commit shares its lists with the one before: a write that failed (or a store
    read again) leaves them as they were, so the next commit still holds the change."""
    record = {"thread_id": "a", "status": "idle"}
    store: dict[str, Any] = {"threads": [record, {"thread_id": "b"}], "runs": []}
    snapshots = Snapshotter("records")
    snapshot = snapshots.changes(store)
    assert snapshot is not None
    snapshots.written()
    record["status"] = "busy"
    store["runs"].append({"thread_id": "a", "run_id": 1})
    failed = snapshots.changes(store, threads=threads)  # its write failed: not `written`
    assert failed is not None
    again = snapshots.changes(store, threads=threads)
    assert again is not None
    snapshots.written()
    assert replay([encode(snapshot), encode(again)]) == store
    assert snapshots.changes(store, threads=threads) is None


def log_bytes(filename: str) -> int:
    return sum(
        Path(commit_file(filename, slot)).stat().st_size
        for slot in (0, 1)
        if Path(commit_file(filename, slot)).exists()
    )


def test_a_commit_writes_only_what_changed(in_folder: Path) -> None:
    """A run changes a record or two among thousands: the commit appends those, it does
    not write the store again."""
    ops = os.path.join(".langgraph_api", ".langgraph_ops.pckl")
    os.mkdir(".langgraph_api")
    runs = [{"run_id": n, "status": "success", "kwargs": {"text": "x" * 200}} for n in range(2000)]
    store = {"runs": runs, "threads": []}
    committer = Committer(lambda: [(ops, store)])
    committer.commit()
    first = log_bytes(ops)
    runs[1500]["status"] = "error"
    runs.append({"run_id": 2000, "status": "pending", "kwargs": {}})
    committer.commit()
    assert log_bytes(ops) - first < 20_000  # the store is over 400 KB
    restore_committed([ops])
    assert loaded(ops) == store


def test_a_grown_log_starts_again_in_the_other_file_and_a_crash_there_loses_nothing(
    in_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Log, "COMPACT_AT", 2_000)
    store: dict[str, list[dict[str, int]]] = {"threads": [{"n": n} for n in range(100)]}
    committer = Committer(lambda: [("ops.pckl", store)])
    committer.commit()  # a snapshot in file 0
    commits = 1
    while newest_commits(["ops.pckl"])["ops.pckl"][1] == 0:
        store["threads"][commits % 100] = {"n": -commits}
        committer.commit()
        commits += 1
    # The log grew past its limit: the last commit was a snapshot in file 1, over
    # nothing; the next compaction goes back to file 0, over its longer earlier log.
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == store
    while newest_commits(["ops.pckl"])["ops.pckl"][1] == 1:
        store["threads"].append({"n": commits})
        committer.commit()
        commits += 1
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == store

    # A crash while the next snapshot is written: the file before holds every commit.
    before = json_copy(store)
    snapshot = Path(commit_file("ops.pckl", 1))
    store["threads"].append({"n": -1})
    for _ in range(200):
        committer.commit()
        if newest_commits(["ops.pckl"])["ops.pckl"][1] == 1:
            break
        before = json_copy(store)
        store["threads"].append({"n": -1})
    snapshot.write_bytes(snapshot.read_bytes()[:100])
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == before


def json_copy(value: Any) -> Any:
    return pickle.loads(pickle.dumps(value))


async def test_a_runs_commit_looks_at_its_threads_records_and_the_rest_soon_after(
    in_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer about thread a waits only for a's records (and any record added); a
    change inside another thread's records is written within `EVERYTHING_WITHIN`."""
    monkeypatch.setattr(Committer, "EVERYTHING_WITHIN", 0.05)
    monkeypatch.setattr(Committer, "BACKGROUND_DELAY", 0.01)
    ops = os.path.join(".langgraph_api", ".langgraph_ops.pckl")
    os.mkdir(".langgraph_api")
    runs = [
        {"run_id": n, "thread_id": "a" if n % 2 else "b", "status": "pending"} for n in range(10)
    ]
    store = {"runs": runs, "threads": [{"thread_id": "a"}, {"thread_id": "b"}]}
    committer = Committer(lambda: [(ops, store)])
    await committer.request()
    runs[1]["status"] = "success"  # thread a
    runs[2]["status"] = "success"  # thread b
    runs.append({"run_id": 10, "thread_id": "c", "status": "pending"})
    await committer.request(threads=["a"])
    restore_committed([ops])
    saved = loaded(ops)
    assert isinstance(saved, dict)
    assert [r["status"] for r in saved["runs"][1:3]] == ["success", "pending"]
    assert saved["runs"][-1]["run_id"] == 10
    deadline = time.monotonic() + 30
    while True:
        restore_committed([ops])
        if loaded(ops) == store:
            break
        assert time.monotonic() < deadline, "the other thread's change was never written"
        await asyncio.sleep(0.01)  # the sweep runs on this loop: nothing else to await


def test_only_the_requests_a_run_is_made_of_name_their_threads() -> None:
    thread = "0f9b9c0e-1a2b-4c3d-8e4f-5a6b7c8d9e0f"
    assert changed_threads("POST", "/threads") == ()
    assert changed_threads("POST", f"/threads/{thread}/runs/wait") == (thread,)
    assert changed_threads("POST", f"/threads/{thread.upper()}/runs/stream") == (thread,)
    assert changed_threads("POST", f"/threads/{thread}/runs") == (thread,)
    assert changed_threads("PATCH", f"/threads/{thread}") is None
    assert changed_threads("POST", f"/threads/{thread}/state") is None
    assert changed_threads("POST", f"/threads/{thread}/runs/{thread}/cancel") is None
    assert changed_threads("POST", "/threads/not-an-id/runs/wait") is None
    assert changed_threads("POST", "/runs/wait") is None
    assert changed_threads("PUT", "/store/items") is None


def test_retry_counts_come_back_as_counted(in_folder: Path) -> None:
    """The retry counter holds the same small numbers for many runs: an entry is known by
    its run, not by its value."""
    counts = os.path.join(".langgraph_api", ".langgraph_retry_counter.pckl")
    os.mkdir(".langgraph_api")
    counter = {f"run-{n}": 1 for n in range(10)}
    committer = Committer(lambda: [(counts, counter)])
    committer.commit()
    counter["run-3"] += 1  # a retried run
    del counter["run-0"]
    counter["run-10"] = 1
    committer.commit()
    counter["run-3"] += 1
    committer.commit()
    restore_committed([counts])
    assert loaded(counts) == counter


def test_a_store_that_tells_its_changes_is_written_by_a_runs_commit_only_after_one(
    in_folder: Path,
) -> None:
    """The retry counter (one entry a run ever made) is left alone by a run's commits
    until it says it changed; a commit of everything writes it all the same."""
    counts = os.path.join(".langgraph_api", ".langgraph_retry_counter.pckl")
    os.mkdir(".langgraph_api")
    counter = {f"run-{n}": 1 for n in range(10)}
    committer = Committer(lambda: [(counts, counter)])
    committer.tells(counts)
    committer.commit()
    written = log_bytes(counts)
    counter["run-10"] = 1
    committer.changed(counts)
    committer.commit(threads=("t",))
    restore_committed([counts])
    assert loaded(counts) == counter
    assert log_bytes(counts) > written
    written = log_bytes(counts)
    counter["run-11"] = 1  # changed without a word
    committer.commit(threads=("t",))
    assert log_bytes(counts) == written  # not looked at
    committer.commit()  # everything
    restore_committed([counts])
    assert loaded(counts) == counter


def test_a_commit_file_of_the_earlier_format_is_still_restored(in_folder: Path) -> None:
    """Data folders written before the log (one whole snapshot a file) keep their data."""
    frames = [
        pickle.dumps([("threads", "list", 2), ("crons", "whole", 1)]),
        pickle.dumps({"thread_id": "a"}),
        pickle.dumps({"thread_id": "b"}),
        pickle.dumps([]),
    ]
    body = b"".join(struct.pack(">I", len(frame)) + frame for frame in frames)
    header = struct.pack(">16sQQI", b"agent-tui commit", 7, len(body), zlib.crc32(body))
    Path(commit_file("ops.pckl", 1)).write_bytes(header + body + b"left from a longer one")

    assert newest_commits(["ops.pckl"]) == {"ops.pckl": (7, 1)}
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == {"threads": [{"thread_id": "a"}, {"thread_id": "b"}], "crons": []}
    # The next process starts its log in the other file, and goes on from there.
    store = {"threads": [{"thread_id": "c"}]}
    Committer(lambda: [("ops.pckl", store)], newest_commits(["ops.pckl"])).commit()
    restore_committed(["ops.pckl"])
    assert loaded("ops.pckl") == store


@pytest.mark.parametrize(
    "change",
    ["append", "drop and append", "drop the last and append two", "drop the first"],
)
def test_a_scoped_commit_sees_records_dropped_from_the_list_it_does_not_copy(
    in_folder: Path, change: str
) -> None:
    """A run's commit does not copy or compare a list only appended to (its first and last
    old records still in place); a record dropped is seen all the same."""
    ops = os.path.join(".langgraph_api", ".langgraph_ops.pckl")
    os.mkdir(".langgraph_api")
    runs = [{"run_id": n, "thread_id": f"t{n % 5}", "status": "success"} for n in range(50)]
    store = {"runs": runs, "threads": [{"thread_id": "a", "status": "idle"}]}
    committer = Committer(lambda: [(ops, store)])
    committer.commit()  # everything, the first time
    for step in range(3):
        runs[2]["status"] = f"busy {step}"  # thread t2's run, changed in place
        if change == "append":
            runs.append({"run_id": 100 + step, "thread_id": "t2", "status": "pending"})
        elif change == "drop and append":
            del runs[10 + step]
            runs.append({"run_id": 100 + step, "thread_id": "t2", "status": "pending"})
        elif change == "drop the last and append two":
            runs.pop()
            runs.extend({"run_id": 200 + step * 2 + k, "thread_id": "t2"} for k in range(2))
        else:
            runs.pop(0)
        committer.commit(threads=("t2",))
        restore_committed([ops])
        assert loaded(ops) == store, f"after step {step}"


async def test_a_commit_that_breaks_fails_its_answers_rather_than_holding_them(
    in_folder: Path,
) -> None:
    """An error no commit expects (not a full disk: a bug) still ends the wait of every
    answer held for it: they fail, they do not hang."""

    def broken() -> list[tuple[str, object]]:
        raise RuntimeError("dictionary changed size during iteration")

    committer = Committer(broken)
    with pytest.raises(CommitError, match="the commit failed"):
        await asyncio.wait_for(committer.request(), timeout=10)
