"""The commit files of the embedded server's stores: the newest whole commit comes back,
a commit cut short by a crash never does, and the runtime's newer file wins."""

from __future__ import annotations

import asyncio
import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.local.durable_commits import (
    CommitError,
    Committer,
    commit_file,
    newest_commits,
    restore_committed,
)
from agent_tui.local.durable_snapshots import Snapshotter


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
