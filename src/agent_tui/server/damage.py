"""Data the server cannot read is never deleted: it is moved (or copied) aside, with a
message saying where, and what can still be read is kept.

The SQLite databases (checkpoints, store, the runtime's records) are checked at start
(`check_databases`): one that SQLite cannot open at all is moved aside and the server
starts without it; one with damaged pages is rebuilt from every row that can still be
read, and the damaged file is moved aside.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time

from agent_tui.server.names import DATA_FOLDER

logger = logging.getLogger("agent_tui.server.damage")
_remove = os.remove  # taken before langgraph-api's blocking-call guard wraps it

ASIDE = os.path.join(DATA_FOLDER, "damaged")
DATABASES = ("checkpoints.db", "store.db", "records.db")
QUICK_CHECK_UP_TO = 64 * 1024 * 1024
"""Bytes of database checked page by page at every start; a bigger one after a crash only."""


RUNNING = os.path.join(DATA_FOLDER, "running")
"""There while a server runs on the folder: found at start, the last one did not stop."""


def mark_running() -> bool:
    """Note that a server runs here; whether the last one was stopped without cleaning up
    (a crash, a kill). The data folder is there (`main` makes it first)."""
    crashed = os.path.exists(RUNNING)
    open(RUNNING, "w").close()
    return crashed


def mark_stopped() -> None:
    with contextlib.suppress(OSError):
        _remove(RUNNING)


def set_aside(path: str) -> str:
    """Move ``path`` (with its WAL files) into the data folder's ``damaged/`` folder; its
    new path."""
    os.makedirs(ASIDE, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = os.path.join(ASIDE, f"{stamp}-{os.path.basename(path)}")
    number = 1
    while os.path.exists(target):
        number += 1
        target = os.path.join(ASIDE, f"{stamp}-{number}-{os.path.basename(path)}")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, target + suffix)
    return os.path.abspath(target)


def check_databases(*, after_crash: bool) -> None:
    """Check each database of the data folder; what was done about damage is logged."""
    for name in DATABASES:
        path = os.path.join(DATA_FOLDER, name)
        if not os.path.exists(path):
            continue
        problem = _problem(path, thorough=after_crash or os.path.getsize(path) <= QUICK_CHECK_UP_TO)
        if problem is None:
            continue
        try:
            message = _salvage(path, problem)
        except sqlite3.DatabaseError as exc:
            kept = set_aside(path)
            message = (
                f"agent-tui: {name} could not be read ({problem}; {exc}); the server starts "
                f"without it; the damaged file is kept at {kept}"
            )
        logger.error(message)


def _problem(path: str, *, thorough: bool) -> str | None:
    try:
        with contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if not thorough:
                return None
            found = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if found == ["ok"] else "; ".join(found)


def _salvage(path: str, problem: str) -> str:
    """Rebuild ``path`` from the rows that can be read; raises `sqlite3.DatabaseError`
    when not even its tables can be listed."""
    rebuilt = path + ".rebuilt"
    with contextlib.suppress(FileNotFoundError):
        os.remove(rebuilt)
    kept = lost = 0
    with (
        contextlib.closing(sqlite3.connect(path)) as source,
        contextlib.closing(sqlite3.connect(rebuilt)) as target,
    ):
        schema = source.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC"
        ).fetchall()
        # The tables (listed first) with their rows, then indexes, triggers and views.
        for kind, name, sql in schema:
            if kind != "table":
                with contextlib.suppress(sqlite3.DatabaseError):
                    target.execute(sql)
                continue
            target.execute(sql)
            rows, missing = _rows(source, name)
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                target.executemany(f'INSERT OR IGNORE INTO "{name}" VALUES ({marks})', rows)
            kept, lost = kept + len(rows), lost + missing
        target.commit()
    aside = set_aside(path)
    os.replace(rebuilt, path)
    name = os.path.basename(path)
    return (
        f"agent-tui: {name} was damaged ({problem}): {lost} row(s) could not be read and "
        f"are left out, {kept} kept; the damaged file is kept at {aside}"
    )


def _rows(source: sqlite3.Connection, table: str) -> tuple[list[tuple[object, ...]], int]:
    """Every readable row of ``table``, and how many could not be read: row by row, so a
    damaged page costs only its rows."""
    rows: list[tuple[object, ...]] = []
    try:
        top = source.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()[0] or 0
    except sqlite3.DatabaseError:  # the end of the table is unreadable: as far as a scan gets
        with contextlib.suppress(sqlite3.DatabaseError):
            for row in source.execute(f'SELECT * FROM "{table}"'):
                rows.append(row)  # each kept as read: the scan may fail further on
        return rows, 1
    lost = 0
    for rowid in range(1, top + 1):
        try:  # the row, or none where no row has that id
            rows.extend(source.execute(f'SELECT * FROM "{table}" WHERE rowid = ?', (rowid,)))
        except sqlite3.DatabaseError:
            lost += 1
    return rows, lost
