"""The SQLite tables behind the embedded server's checkpointer (`durable_checkpointer`):
the rows of langgraph's `InMemorySaver` dictionaries, as they are in memory, loaded once at
start and kept up to date by the saver's journal.

Three tables, one per dictionary (``storage``, ``blobs``, ``writes``), each row the
dictionary's key and its value (a serialized value is kept as its two parts, type and
bytes: nothing is serialized again to be saved). ``checkpoint_rows.run_id`` is the run
that made a checkpoint (``multitask_strategy="rollback"`` deletes a run's checkpoints).

Earlier data is copied in once, when these tables are new: langgraph's `SqliteSaver`
tables (``checkpoints`` and ``writes``, which agent-tui used before; dropped once copied),
and the runtime's own pickled checkpoints (from before durable writes; left as they were).
Only the server process imports this module (it needs langgraph-api).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver


class Saver(InMemorySaver):
    """The saver these tables fill and are filled from (`durable_checkpointer` makes it):
    langgraph's `InMemorySaver` that remembers which run made each checkpoint."""

    def note_run(self, run_id: str, key: tuple[str, str, str]) -> None: ...

    def flush(self) -> None: ...


logger = logging.getLogger(__name__)

Journal = list[tuple[str, list[tuple[Any, ...]]]]
"""Statements (a put or a delete below) and their rows, in order."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoint_rows (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    checkpoint_type TEXT NOT NULL,
    checkpoint BLOB NOT NULL,
    metadata_type TEXT NOT NULL,
    metadata BLOB NOT NULL,
    parent_checkpoint_id TEXT,
    run_id TEXT,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    channel TEXT NOT NULL,
    version NOT NULL,
    type TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint_writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT NOT NULL,
    value BLOB NOT NULL,
    task_path TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint_log_applied (sequence INTEGER NOT NULL);
INSERT INTO checkpoint_log_applied SELECT 0
    WHERE NOT EXISTS (SELECT 1 FROM checkpoint_log_applied);
"""
"""``version`` has no type: a channel's version is a string, an integer or a float, and
comes back as it went in. Tables without row ids: a row is kept once, in its key's order
(a commit writes fewer pages). No index on ``run_id``: the saver keeps each run's
checkpoints in memory, read from this column at start."""

PUT_CHECKPOINT = "INSERT OR REPLACE INTO checkpoint_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
PUT_BLOB = "INSERT OR REPLACE INTO checkpoint_blobs VALUES (?, ?, ?, ?, ?, ?)"
PUT_WRITE = "INSERT OR REPLACE INTO checkpoint_writes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
DELETE_THREAD = tuple(
    f"DELETE FROM {table} WHERE thread_id = ?"
    for table in ("checkpoint_rows", "checkpoint_blobs", "checkpoint_writes")
)
DELETE_CHECKPOINT = tuple(
    f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
    for table in ("checkpoint_rows", "checkpoint_writes")
)
DELETE_BLOB = (
    "DELETE FROM checkpoint_blobs "
    "WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?"
)

PUTS = {PUT_CHECKPOINT: 9, PUT_BLOB: 6, PUT_WRITE: 9}
"""Each put and the number of its columns."""
ROWS_A_STATEMENT = 200

PICKLED_CHECKPOINTS = ".langgraph_checkpoint.1.pckl"
"""The first of the runtime's own checkpoint files (from before durable writes), in the
data folder's ``.langgraph_api`` (where the runtime loads them from)."""


def create(conn: sqlite3.Connection) -> bool:
    """Make the tables (and set the connection up); whether they are new."""
    # A crash loses no commit with NORMAL in WAL mode; FULL would also survive a power
    # cut, at an fsync per commit. Another connection waits for the lock rather than fail.
    # Only the log's applier writes while the server runs, off the event loop: SQLite's
    # own copying of the write-ahead log into the database happens there.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    new = not _has_table(conn, "checkpoint_rows")
    conn.executescript(SCHEMA)
    conn.commit()
    return new


def grouped(journal: Journal) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """The journal with the rows of each kind of put together (one ``executemany`` each,
    not one per change: each call costs more than a row); a delete, and whatever follows
    it, keeps its place after the puts before it."""
    puts: dict[str, list[tuple[Any, ...]]] = {}
    for sql, rows in journal:
        if sql in PUTS:
            puts.setdefault(sql, []).extend(rows)
            continue
        yield from puts.items()
        puts = {}
        yield sql, rows
    yield from puts.items()


def write(conn: sqlite3.Connection, journal: Journal) -> None:
    """Apply ``journal`` to the tables and commit (at start, before the log runs)."""
    execute(conn, journal)
    conn.commit()


def execute(conn: sqlite3.Connection, journal: Journal) -> None:
    """Apply ``journal`` in the open transaction: the rows of a put go in statements of
    up to `ROWS_A_STATEMENT` rows each (``VALUES (…), (…)``), not one statement a row.
    Each statement's step releases the GIL; taking it back from a busy event loop waits
    for the loop's switch interval (5 ms), so a thread running a statement a row took
    longer to apply the rows than the loop took to make them, and kept taking the GIL."""
    for sql, rows in grouped(journal):
        columns = PUTS.get(sql)
        if columns is None:
            conn.executemany(sql, rows)
            continue
        head = sql[: sql.index(" VALUES ") + len(" VALUES ")]
        one = "(" + ", ".join("?" * columns) + ")"
        for start in range(0, len(rows), ROWS_A_STATEMENT):
            chunk = rows[start : start + ROWS_A_STATEMENT]
            conn.execute(head + ", ".join([one] * len(chunk)), list(chain.from_iterable(chunk)))


def applied(conn: sqlite3.Connection) -> int:
    """The last block of the log (`checkpoint_log`) the tables hold."""
    row = conn.execute("SELECT sequence FROM checkpoint_log_applied").fetchone()
    return int(row[0]) if row else 0


def load(conn: sqlite3.Connection, saver: Saver) -> int:
    """Fill ``saver``'s dictionaries from the tables; how many checkpoints there are."""
    count = 0
    storage = saver.storage
    for row in conn.execute("SELECT * FROM checkpoint_rows"):
        thread_id, ns, checkpoint_id, ctype, checkpoint, mtype, metadata, parent, run_id = row
        storage[thread_id][ns][checkpoint_id] = ((ctype, checkpoint), (mtype, metadata), parent)
        if run_id is not None:
            saver.note_run(run_id, (thread_id, ns, checkpoint_id))
        count += 1
    blobs = saver.blobs
    for thread_id, ns, channel, version, vtype, value in conn.execute(
        "SELECT * FROM checkpoint_blobs"
    ):
        blobs[(thread_id, ns, channel, version)] = (vtype, value)
    writes = saver.writes
    for row in conn.execute("SELECT * FROM checkpoint_writes"):
        thread_id, ns, checkpoint_id, task_id, idx, channel, vtype, value, task_path = row
        writes[(thread_id, ns, checkpoint_id)][(task_id, idx)] = (
            task_id,
            channel,
            (vtype, value),
            task_path,
        )
    return count


def copy_earlier(conn: sqlite3.Connection, saver: Saver, folder: Path) -> int:
    """Into new tables: the checkpoints of langgraph's `SqliteSaver` tables in the same
    database (dropped once copied), else those of the runtime's own files; how many."""
    if _has_table(conn, "checkpoints") and _has_table(conn, "writes"):
        from langgraph.checkpoint.sqlite import SqliteSaver

        earlier = SqliteSaver(conn, serde=saver.serde)
        earlier.is_setup = True  # the tables are there; `setup` would commit
        copied = copy_into(saver, earlier.list(None))
        saver.flush()  # into the new tables, committed
        conn.execute("DROP TABLE writes")
        conn.execute("DROP TABLE checkpoints")
        conn.commit()
        logger.info("agent-tui: copied %d checkpoints from the earlier tables", copied)
        return copied
    if (folder / PICKLED_CHECKPOINTS).exists():
        from langgraph_runtime_inmem.checkpoint import Checkpointer

        pickled = Checkpointer()  # the runtime's saver, loaded from its files
        copied = copy_into(saver, pickled.list(None))
        saver.flush()
        logger.info("agent-tui: copied %d checkpoints from the runtime's files", copied)
        return copied
    return 0


def copy_into(saver: Saver, found: Iterable[CheckpointTuple]) -> int:
    """Put every checkpoint of ``found`` (with its pending writes) into ``saver``, each
    with its parent and every channel's value; how many."""
    copied = 0
    for item in found:
        configurable = item.config["configurable"]
        parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        config: RunnableConfig = {
            "configurable": {
                "thread_id": configurable["thread_id"],
                "checkpoint_ns": configurable.get("checkpoint_ns", ""),
                **({"checkpoint_id": parent} if parent else {}),
            }
        }
        checkpoint: Any = item.checkpoint
        versions = dict(checkpoint.get("channel_versions", {}))
        stored = saver.put(config, checkpoint, item.metadata, versions)
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in item.pending_writes or []:
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():  # in their order: each keeps its index
            saver.put_writes(stored, writes, task_id)
        copied += 1
    return copied


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return found is not None
