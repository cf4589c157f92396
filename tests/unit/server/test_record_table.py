"""A save of the runtime's records reads back as the runtime holds them, after every kind
of change it makes, while the runs that have ended are left alone (`record_table`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_tui.server import record_table, upstream
from agent_tui.server.names import OPS_FILE
from agent_tui.server.record_table import RecordTable

FILE = f"/data/.langgraph_api/{OPS_FILE}"


def run(n: int, status: str = "success") -> dict[str, Any]:
    return {"run_id": f"run-{n}", "thread_id": f"thread-{n}", "status": status, "kwargs": {"n": n}}


def thread(n: int, status: str = "idle") -> dict[str, Any]:
    return {"thread_id": f"thread-{n}", "status": status, "values": {"messages": [n]}}


@pytest.fixture
def conn(tmp_path: Path) -> record_table.Connection:
    return record_table.connect(str(tmp_path / "records.db"))


def save(conn: sqlite3.Connection, table: RecordTable, mapping: dict[str, Any]) -> int:
    """Saves ``mapping``; the rows written."""
    before = conn.total_changes
    table.write(mapping)
    conn.commit()
    return conn.total_changes - before


def read_back(conn: sqlite3.Connection) -> dict[Any, Any]:
    mapping, lost = record_table.read(conn, FILE)
    assert lost == 0
    return mapping


def test_every_change_the_runtime_makes_reads_back(conn: record_table.Connection) -> None:
    table = RecordTable(conn, FILE, upstream.records_that_end(FILE))
    runs = [run(n) for n in range(300)] + [run(300, "running")]
    ops: dict[str, Any] = {"runs": runs, "threads": [thread(n) for n in range(301)]}
    save(conn, table, ops)
    assert read_back(conn) == ops

    # A run under way ends, and its thread with it (in place, as the runtime does).
    runs[300].update(status="success", updated_at="later")
    ops["threads"][300]["status"] = "idle"
    assert save(conn, table, ops) <= 6
    assert read_back(conn) == ops

    # A new run on an old thread: appended, and the thread busy again.
    runs.append(run(301, "pending"))
    ops["threads"][5]["status"] = "busy"
    save(conn, table, ops)
    assert read_back(conn) == ops

    # A thread deleted: the runtime rebuilds the lists without its records.
    ops["runs"] = runs = [r for r in runs if r["thread_id"] != "thread-7"]
    ops["threads"] = [t for t in ops["threads"] if t["thread_id"] != "thread-7"]
    save(conn, table, ops)
    assert read_back(conn) == ops

    # Another object where an ended run was, and a run cancelled ("interrupted" is not an
    # end: its worker may still set its own status).
    runs[10] = run(999)
    runs[-1]["status"] = "interrupted"
    save(conn, table, ops)
    runs[-1]["status"] = "error"
    save(conn, table, ops)
    assert read_back(conn) == ops

    # A list whose records are no longer all dictionaries is kept as a value.
    ops["crons"] = [{"cron_id": "c"}]
    save(conn, table, ops)
    ops["crons"].append("not a record")
    save(conn, table, ops)
    assert read_back(conn) == ops


def test_a_save_writes_what_changed_and_nothing_when_nothing_did(
    conn: record_table.Connection,
) -> None:
    table = RecordTable(conn, FILE, upstream.records_that_end(FILE))
    ops = {"runs": [run(n) for n in range(2000)], "threads": [thread(n) for n in range(2000)]}
    assert save(conn, table, ops) > 4000
    assert save(conn, table, ops) == 0
    ops["threads"][1234]["status"] = "busy"
    written = save(conn, table, ops)
    assert 0 < written <= 4  # the thread's row, and its list's head rows
    assert read_back(conn)["threads"][1234]["status"] == "busy"


def test_only_runs_that_succeeded_failed_or_timed_out_have_ended() -> None:
    ended = [
        s
        for s in ("pending", "running", "interrupted", "success", "error", "timeout")
        if upstream.run_has_ended({"status": s})
    ]
    assert ended == ["success", "error", "timeout"]
    assert upstream.records_that_end("/elsewhere/store.pckl") == {}


def test_runs_under_way_are_saved_as_they_change_among_thousands_that_ended(
    conn: record_table.Connection,
) -> None:
    table = RecordTable(conn, FILE, upstream.records_that_end(FILE))
    runs = [run(n) for n in range(3000)]
    ops: dict[str, Any] = {"runs": runs, "threads": []}
    save(conn, table, ops)
    # Runs start and go on while others end: each save reads back as the runtime holds it.
    for step in range(6):
        runs.append(run(3000 + step, "pending"))
        for under_way in runs[3000:]:
            if under_way["status"] == "pending":
                under_way["status"] = "running"
            elif under_way["status"] == "running" and step % 2:
                under_way.update(status="success", kwargs={"n": step})
        save(conn, table, ops)
        assert read_back(conn) == ops
    # An ended run replaced by an equal one, then another run appended: both read back.
    runs[5] = dict(runs[5])
    runs.append(run(4000, "running"))
    save(conn, table, ops)
    runs[-1]["status"] = "success"
    save(conn, table, ops)
    assert read_back(conn) == ops
