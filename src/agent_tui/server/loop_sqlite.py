"""SQLite used on the event loop on purpose: short committed writes (a checkpoint, the
runtime's records) cost less there than a hop to a thread and back.

langgraph-api's blocking-call guard (blockbuster, started with the runtime's queue, after
this module is imported) wraps `sqlite3.Connection` and `sqlite3.Cursor` methods so that a
call on the event loop raises. These classes keep the methods as they were at import. Reads
that can be long (a thread's whole history) stay off the loop.
"""

from __future__ import annotations

import sqlite3
from typing import Any


class LoopCursor(sqlite3.Cursor):
    execute = sqlite3.Cursor.execute
    executemany = sqlite3.Cursor.executemany
    executescript = sqlite3.Cursor.executescript
    fetchone = sqlite3.Cursor.fetchone
    fetchmany = sqlite3.Cursor.fetchmany
    fetchall = sqlite3.Cursor.fetchall


class LoopConnection(sqlite3.Connection):
    execute = sqlite3.Connection.execute
    executemany = sqlite3.Connection.executemany
    executescript = sqlite3.Connection.executescript
    commit = sqlite3.Connection.commit
    rollback = sqlite3.Connection.rollback

    def cursor(self, factory: Any = LoopCursor) -> Any:
        return super().cursor(factory)


def connect(path: str) -> LoopConnection:
    """A connection in WAL mode with ``synchronous=NORMAL``: a commit survives a crash of
    the process (no fsync per commit: not necessarily a power cut)."""
    conn = sqlite3.connect(path, factory=LoopConnection, check_same_thread=False)
    assert isinstance(conn, LoopConnection)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn
