"""The runtime's dictionaries of records (threads, runs, assistants, crons …) as rows of
one SQLite database, ``records.db``: a save writes, in one transaction, the rows of what
changed since the last one, so it costs what changed, not what is kept. SQLite keeps a
save whole or not at all when the process is killed; damage is dealt with at start as for
the other databases (`damage`).

A row is (file, key, position, data): a value is one row at position -1; a list of records
(the runtime appends to its lists and rebuilds them to delete) is a row at -1 with no data
and a row per record. A record is changed when one of its values is another object or
unequal: the lists are compared with a shallow copy kept from the last save, in C
(``map(ne, …)``), so an unchanged list costs no Python loop. A record that can no longer
change (a run that has ended, `upstream.run_has_ended`), still the same object where it
was, is not read at all: reading every record is what a save of a few thousand cost
(memory the save touches, milliseconds each time), and they are mostly runs that ended.
Whether they are still where they were is one comparison of two lists in C, by address
(`_changed_open`); the lists kept change in place, where something changed.
A value changed in place inside a record is seen at the next full save (every
`FULL_EVERY` saves) only.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import os
import pickle
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from agent_tui.server.names import DATA_FOLDER

DATABASE = os.path.join(DATA_FOLDER, "records.db")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS records (file TEXT, key BLOB, position INTEGER, data BLOB,"
    " UNIQUE (file, key, position))"
)
PUT = "INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?)"
CUT = "DELETE FROM records WHERE file = ? AND key = ? AND position >= ?"
FULL_EVERY = 200


class Connection(sqlite3.Connection):
    """Writes on the event loop on purpose: the methods as they were before langgraph-api's
    blocking-call guard wraps them (it starts with the queue, after this import)."""

    execute = sqlite3.Connection.execute
    executemany = sqlite3.Connection.executemany
    commit = sqlite3.Connection.commit
    rollback = sqlite3.Connection.rollback


def connect(path: str = DATABASE) -> Connection:
    conn = sqlite3.connect(path, factory=Connection, check_same_thread=False)
    assert isinstance(conn, Connection)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(SCHEMA)  # sqlite3 opens no transaction for it: nothing to commit
    return conn


Ended = Callable[[Mapping[Any, Any]], bool]
"""Whether a record of a list is one the runtime never changes in place again (a run
that has ended: `upstream.run_has_ended`)."""


class RecordTable:
    """One dictionary's rows; `save` writes what changed since the last save.

    ``ended``: per list, which of its records are never changed in place once they are
    as saved. While every saved record of such a list is still where it was, only those
    that had not ended are compared: a save then costs what may still change (threads,
    runs under way), not every run ever made. Otherwise (a list rebuilt), and at a full
    save (every `FULL_EVERY`), every record is compared."""

    def __init__(self, conn: Connection, file: str, ended: Mapping[Any, Ended] = {}) -> None:
        self.conn, self.file = conn, file
        self._ended = dict(ended)
        self._saves = 0
        # Per list of records: shallow copies of its records as last saved; for lists
        # with an `ended` rule, the records themselves and the positions of those that
        # had not ended.
        self._lists: dict[Any, list[dict[Any, Any]]] = {}
        self._objects: dict[Any, list[dict[Any, Any]]] = {}
        self._open: dict[Any, set[int]] = {}
        self._values: dict[Any, bytes] = {}

    def write(self, mapping: Mapping[Any, Any]) -> None:
        """What changed since the last save, in the transaction open on the connection
        (the caller commits; after a failure it calls `forget`)."""
        if self._saves % FULL_EVERY == 0:
            self._drop_lists()
            self._values.clear()
            self.conn.execute("DELETE FROM records WHERE file = ?", (self.file,))
        self._saves += 1
        execute, file = self.conn.execute, self.file
        for key, value in list(mapping.items()):
            if isinstance(value, list) and self._write_list(key, value):
                self._values.pop(key, None)
                continue
            self._drop_lists(key)
            data = pickle.dumps(value, 5)
            if self._values.get(key) != data:
                self._values[key] = data
                execute("DELETE FROM records WHERE file = ? AND key = ?", (file, _key(key)))
                execute(PUT, (file, _key(key), -1, data))
        for key in [k for k in (*self._lists, *self._values) if k not in mapping]:
            self._drop_lists(key)
            self._values.pop(key, None)
            execute("DELETE FROM records WHERE file = ? AND key = ?", (file, _key(key)))

    def forget(self) -> None:
        """What is known saved is not (a transaction undone): the next save writes all."""
        self._saves = 0

    def _drop_lists(self, *keys: Any) -> None:
        for kept in (self._lists, self._objects, self._open):
            if not keys:
                kept.clear()
            for key in keys:
                kept.pop(key, None)

    def _changed(self, key: Any, records: list[Any]) -> list[int]:
        """Positions whose record is not as last saved, new ones included.

        Whether the saved records are still where they were is one comparison of two
        lists in C, which tells the same object by its address without reading it
        (nor its reference count, as a copy or a `map` would: reading each of a few
        thousand records cost a save about a millisecond in the memory it touches)."""
        copies, objects = self._lists[key], self._objects.pop(key, None)
        if objects is not None and len(records) >= (saved := len(objects)):
            objects.extend(records[saved:])
            if objects == records:
                self._objects[key] = objects
                return [p for p in self._open[key] if copies[p] != records[p]] + list(
                    range(saved, len(records))
                )
        kept = min(len(records), len(copies))
        changed = list(itertools.compress(range(kept), map(operator.ne, copies, records)))
        return changed + list(range(kept, len(records)))

    def _write_list(self, key: Any, records: list[Any]) -> bool:
        """Writes a list of dictionaries; False (nothing written) when a record to write
        is not one: the list is then written as a value."""
        known = key in self._lists
        changed = list(range(len(records)))
        if known:  # a value that cannot tell whether it is equal: all written
            with contextlib.suppress(TypeError, ValueError):
                changed = self._changed(key, records)
        if not all(type(records[p]) is dict for p in changed):
            return False
        if (ended := self._ended.get(key)) is not None:
            self._objects.setdefault(key, list(records))
            open_ = {p for p in (*self._open.get(key, ()), *changed) if p < len(records)}
            self._open[key] = {p for p in open_ if not ended(records[p])}
        if known and not changed and len(records) == len(self._lists[key]):
            return True
        copies = self._lists.setdefault(key, [])
        del copies[len(records) :]
        copies.extend([{}] * (len(records) - len(copies)))
        for position in changed:
            copies[position] = dict(records[position])
        blob = _key(key)
        self.conn.execute(CUT, (self.file, blob, len(records)))
        self.conn.execute(PUT, (self.file, blob, -1, None))
        rows = ((self.file, blob, p, pickle.dumps(records[p], 5)) for p in changed)
        self.conn.executemany(PUT, rows)
        return True


def _key(key: Any) -> bytes:
    return pickle.dumps(key, 5)


def files(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT DISTINCT file FROM records ORDER BY file")]


def read(conn: sqlite3.Connection, file: str) -> tuple[dict[Any, Any], int]:
    """The dictionary as last saved, and how many of its rows could not be read (left out:
    rows lost to damage are told by `damage`)."""
    mapping: dict[Any, Any] = {}
    lost = 0
    rows = conn.execute(
        "SELECT key, position, data FROM records WHERE file = ? ORDER BY key, position", (file,)
    )
    for blob, position, data in rows:
        try:
            key = pickle.loads(blob)
            if position >= 0:
                mapping.setdefault(key, []).append(pickle.loads(data))
            elif data is not None:
                mapping[key] = pickle.loads(data)
            else:
                mapping.setdefault(key, [])
        except Exception:  # a row damaged past what SQLite checks
            lost += 1
    return mapping, lost
