"""The trace store: run trees in one SQLite file, written by the collector, read by
`traces.query`.

A run arrives in pieces, in any order: a *post* (the run as it starts: name, type,
inputs, start time, parent) and one or more *patches* (outputs, end time, error,
events, extra); with the SDK's batching both may come in one request, or the patch
first when two background threads race. Each run is one row holding the merge of every
piece seen so far (`overlay`), so a patch that comes before its post is kept and the
post fills in what it lacks. The columns the lists need (type, times, thread, node,
tokens) are read out of the merged run on every write.

Bounded: when the runs stored exceed ``max_bytes`` (their JSON, the store's own
measure), whole traces go, oldest received first, until a tenth of the limit is free.
The file gives the pages back (``auto_vacuum = INCREMENTAL``).

Every run is redacted (`redaction`) before it is merged: nothing secret is written.

Two tables: ``runs`` holds the columns (small rows: a list of thousands of calls reads
few pages) and ``run_bodies`` each run's JSON, read only for a run shown whole.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from agent_tui.traces import json_codec
from agent_tui.traces.redaction import Redactor
from agent_tui.traces.run_fields import RunColumns, run_columns

DB_FILE = "traces.sqlite3"
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""What the runs stored may take (their JSON) before the oldest traces are pruned."""
PRUNE_TO = 0.9
"""Pruning frees this share of the limit at once: not a prune on every write."""

Operation = Literal["post", "patch"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    trace_id TEXT,
    parent_run_id TEXT,
    dotted_order TEXT,
    run_type TEXT,
    name TEXT,
    start_time TEXT,
    end_time TEXT,
    failed INTEGER NOT NULL DEFAULT 0,
    thread_id TEXT,
    graph_run_id TEXT,
    node TEXT,
    checkpoint_ns TEXT,
    model TEXT,
    provider TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    first_token TEXT,
    finish_reason TEXT,
    posted INTEGER NOT NULL,
    received REAL NOT NULL,
    size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS run_bodies (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_trace ON runs (trace_id, dotted_order);
CREATE INDEX IF NOT EXISTS runs_by_thread ON runs (thread_id, dotted_order);
CREATE INDEX IF NOT EXISTS runs_by_graph_run ON runs (graph_run_id);
CREATE INDEX IF NOT EXISTS runs_by_received ON runs (received);
CREATE INDEX IF NOT EXISTS roots_by_start ON runs (start_time) WHERE parent_run_id IS NULL;
"""
SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of the file. Traces are a record, not a source of truth: a file of
another version is started afresh rather than migrated."""

_UPSERT = """
INSERT OR REPLACE INTO runs (
    id, trace_id, parent_run_id, dotted_order, run_type, name, start_time, end_time,
    failed, thread_id, graph_run_id, node, checkpoint_ns, model, provider, input_tokens,
    output_tokens, first_token, finish_reason, posted, received, size
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_UPSERT_BODY = "INSERT OR REPLACE INTO run_bodies (id, body) VALUES (?, ?)"

_IN_CHUNK = 500  # ids per `IN (…)`: under SQLite's variable limit everywhere


def overlay(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``top``'s values over it; a None in ``top`` changes nothing, and
    ``extra`` (with its ``metadata``) is merged key by key, so neither piece loses any."""
    merged = dict(base)
    for key, value in top.items():
        if value is None:
            continue
        old = merged.get(key)
        if key == "extra" and isinstance(old, dict) and isinstance(value, dict):
            extra = {**old, **value}
            old_meta, new_meta = old.get("metadata"), value.get("metadata")
            if isinstance(old_meta, dict) and isinstance(new_meta, dict):
                extra["metadata"] = {**old_meta, **new_meta}
            merged[key] = extra
        else:
            merged[key] = value
    return merged


class TraceStore:
    """One SQLite file of runs. Thread-safe: one connection, used under a lock (the
    collector writes from a worker thread; a reader may share the object)."""

    def __init__(
        self,
        path: Path,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        redactor: Redactor | None = None,
        readonly: bool = False,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.redactor = redactor or Redactor()
        self._lock = threading.Lock()
        if readonly:
            uri = f"{path.resolve().as_uri()}?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            # Before the first table: only an empty file takes it.
            self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                self._db.execute("DROP TABLE IF EXISTS runs")
                self._db.execute("DROP TABLE IF EXISTS run_bodies")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            path.chmod(0o600)
        self._db.execute("PRAGMA busy_timeout = 5000")  # two collectors on one file
        self._db.row_factory = sqlite3.Row
        self._stored: int | None = None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, for `traces.query`'s reads (under the lock)."""
        with self._lock:
            yield self._db

    # -- writing -----------------------------------------------------------------------

    def ingest(self, operations: Iterable[tuple[Operation, dict[str, Any]]]) -> int:
        """Store posts and patches (one request's, in the order sent); the runs written."""
        pieces: dict[str, tuple[bool, dict[str, Any]]] = {}
        for operation, run in operations:
            run_id = run.get("id")
            if not isinstance(run_id, str) or not run_id:
                continue
            run = self.redactor.run(run)
            posted, merged = pieces.get(run_id, (False, {}))
            if operation == "post":
                pieces[run_id] = (True, overlay(run, merged))
            else:
                pieces[run_id] = (posted, overlay(merged, run))
        if not pieces:
            return 0
        with self._lock:
            self._write(pieces)
        return len(pieces)

    def _write(self, pieces: dict[str, tuple[bool, dict[str, Any]]]) -> None:
        db = self._db
        now = time.time()
        ids = list(pieces)
        stored: dict[str, sqlite3.Row] = {}
        for start in range(0, len(ids), _IN_CHUNK):
            chunk = ids[start : start + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in db.execute(
                "SELECT runs.id, posted, received, size, body FROM runs"
                f" JOIN run_bodies USING (id) WHERE runs.id IN ({marks})",
                chunk,
            ):
                stored[row["id"]] = row
        rows = []
        bodies = []
        grown = 0
        for run_id, (posted, piece) in pieces.items():
            old = stored.get(run_id)
            received = now
            if old is not None:
                before = json_codec.loads(old["body"])
                # A post is the base and what came before it stays over it; a patch
                # goes over what is stored.
                piece = overlay(piece, before) if posted else overlay(before, piece)
                posted = posted or bool(old["posted"])
                received = old["received"]
                grown -= old["size"]
            body = json_codec.dumps(piece)
            grown += len(body)
            rows.append(_row(run_id, run_columns(piece), posted, received, len(body)))
            bodies.append((run_id, body))
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(_UPSERT, rows)
            db.executemany(_UPSERT_BODY, bodies)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if self._stored is not None:
            self._stored += grown
        if self._stored_bytes() > self.max_bytes:
            self._prune()

    def _stored_bytes(self) -> int:
        if self._stored is None:
            self._stored = int(
                self._db.execute("SELECT COALESCE(SUM(size), 0) FROM runs").fetchone()[0]
            )
        return self._stored

    def _prune(self) -> None:
        """Delete whole traces, oldest first, until the runs fit `PRUNE_TO` of the limit."""
        db = self._db
        # Measured again: another collector may write to the same file.
        self._stored = None
        excess = self._stored_bytes() - int(self.max_bytes * PRUNE_TO)
        doomed: list[str] = []
        for row in db.execute(
            "SELECT trace_id, SUM(size) AS size FROM runs GROUP BY trace_id ORDER BY MIN(received)"
        ):
            if excess <= 0:
                break
            doomed.append(row["trace_id"])
            excess -= row["size"]
        db.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(doomed), _IN_CHUNK):
                chunk = doomed[start : start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                db.execute(
                    "DELETE FROM run_bodies WHERE id IN"
                    f" (SELECT id FROM runs WHERE trace_id IN ({marks}))",
                    chunk,
                )
                db.execute(f"DELETE FROM runs WHERE trace_id IN ({marks})", chunk)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("PRAGMA incremental_vacuum")
        self._stored = None

    def stored_bytes(self) -> int:
        """What the runs take now (their JSON), as the limit counts it."""
        with self._lock:
            self._stored = None
            return self._stored_bytes()

    def delete_traces(self, trace_ids: Sequence[str]) -> None:
        with self._lock:
            for trace_id in trace_ids:
                self._db.execute(
                    "DELETE FROM run_bodies WHERE id IN (SELECT id FROM runs WHERE trace_id = ?)",
                    (trace_id,),
                )
                self._db.execute("DELETE FROM runs WHERE trace_id = ?", (trace_id,))
            self._stored = None


def _row(
    run_id: str, columns: RunColumns, posted: bool, received: float, size: int
) -> tuple[Any, ...]:
    return (
        run_id,
        columns.trace_id,
        columns.parent_run_id,
        columns.dotted_order,
        columns.run_type,
        columns.name,
        columns.start_time,
        columns.end_time,
        int(columns.failed),
        columns.thread_id,
        columns.graph_run_id,
        columns.node,
        columns.checkpoint_ns,
        columns.model,
        columns.provider,
        columns.input_tokens,
        columns.output_tokens,
        columns.first_token,
        columns.finish_reason,
        int(posted),
        received,
        size,
    )
