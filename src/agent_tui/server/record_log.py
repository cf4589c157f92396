"""One dictionary of the runtime's records (threads, runs, assistants, crons …)
kept in a file as a log: a save appends what changed since the last one, so it costs what
changed, not what is kept.

The file is a run of pickles, each ``(full, {key: change})``: ``full`` starts over (the
first save of a process, then every `FULL_EVERY` saves or when the file has doubled: a new
file written whole and renamed over the old one). A change is ``("list", length,
{position: record pickle})`` for a list of records (the runtime appends to its lists and
rebuilds them to delete), ``("value", pickle)`` for anything else, ``("gone",)`` for a key
removed. A record is changed when one of its values is another object or unequal: the
lists are compared with a shallow copy kept from the last save, in C (``map(ne, …)``),
so an unchanged list costs no Python loop. A value changed in place inside a record is
seen at the next full save only.

A process killed during an append leaves a truncated pickle at the end: `read` stops
before it, and the next process starts its file over.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import os
import pickle
from collections.abc import Mapping
from typing import Any

# Taken before langgraph-api's blocking-call guard wraps them (it starts with the queue,
# after this module is imported): these writes are on purpose, on the event loop.
_open, _write, _close, _replace = os.open, os.write, os.close, os.replace

Change = tuple[Any, ...]


class RecordLog:
    FULL_EVERY = 200
    SMALLEST = 64 * 1024
    """Bytes below which the file is not started over for its size."""
    FEW = 8

    def __init__(self, path: str) -> None:
        self.path = path
        self._descriptor: int | None = None
        self._size = 0
        self._started_size = 0
        self._saves = 0
        # Per list of records as last saved: the records, their shallow copies, pickles.
        self._lists: dict[Any, tuple[list[Any], list[dict[Any, Any]], list[bytes]]] = {}
        self._values: dict[Any, bytes] = {}

    def save(self, mapping: Mapping[Any, Any]) -> None:
        """Raises `OSError` when the file cannot be written."""
        self._saves += 1
        full = (
            self._descriptor is None
            or self._saves % self.FULL_EVERY == 0
            or self._size > max(self.SMALLEST, 2 * self._started_size)
        )
        if full:
            self._lists.clear()
            self._values.clear()
        changes = self._changes(mapping)
        if not changes and not full:
            return
        data = pickle.dumps((full, changes), 5)
        try:
            if full:
                self._start_over(data)
            else:
                assert self._descriptor is not None
                _write_all(self._descriptor, data)
                self._size += len(data)
        except OSError:
            # Part of it may be written: what follows would not be read. The next save
            # starts the file over (`_start_over`: a new file, renamed once whole).
            if self._descriptor is not None:
                with contextlib.suppress(OSError):
                    _close(self._descriptor)
                self._descriptor = None
            raise

    def _changes(self, mapping: Mapping[Any, Any]) -> dict[Any, Change]:
        changes: dict[Any, Change] = {}
        for key, value in list(mapping.items()):
            if isinstance(value, list) and set(map(type, value)) <= {dict}:
                change = self._list_changes(key, value)
                if change is not None:
                    changes[key] = change
                continue
            self._lists.pop(key, None)
            data = pickle.dumps(value, 5)
            if self._values.get(key) != data:
                self._values[key] = data
                changes[key] = ("value", data)
        for key in [k for k in (*self._lists, *self._values) if k not in mapping]:
            self._lists.pop(key, None)
            self._values.pop(key, None)
            changes[key] = ("gone",)
        return changes

    def _list_changes(self, key: Any, records: list[dict[Any, Any]]) -> Change | None:
        self._values.pop(key, None)
        known = key in self._lists
        old_records, copies, pickles = self._lists.get(key, ([], [], []))
        kept = min(len(records), len(copies))
        try:
            changed = list(
                itertools.compress(range(kept), map(operator.ne, copies[:kept], records))
            )
        except (TypeError, ValueError):  # a value that cannot tell whether it is equal
            changed = list(range(kept))
        changed.extend(range(kept, len(records)))
        if known and not changed and len(records) == len(copies):
            self._lists[key] = (list(records), copies, pickles)
            return None
        # A record moved (a list rebuilt without a deleted one) keeps its pickle; a few
        # changes (a record added or updated) are not worth the map of every record.
        where: dict[int, int] = {}
        if len(changed) > self.FEW:
            where = dict(zip(map(id, old_records), range(len(old_records)), strict=True))
        old_copies, old_pickles = copies, pickles
        copies, pickles = copies[: len(records)], pickles[: len(records)]
        copies.extend([{}] * (len(records) - len(copies)))
        pickles.extend([b""] * (len(records) - len(pickles)))
        parts = {}
        for position in changed:
            record = records[position]
            earlier = where.get(id(record))
            if earlier is not None and _equal(old_copies[earlier], record):
                data = old_pickles[earlier]
            else:
                data = pickle.dumps(record, 5)
            copies[position], pickles[position] = dict(record), data
            parts[position] = data
        self._lists[key] = (list(records), copies, pickles)
        return ("list", len(records), parts)

    def _start_over(self, data: bytes) -> None:
        temporary = self.path + ".saving"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
        descriptor = _open(temporary, flags, 0o644)
        try:
            _write_all(descriptor, data)
            _replace(temporary, self.path)
        except OSError:
            _close(descriptor)
            raise
        if self._descriptor is not None:
            _close(self._descriptor)
        self._descriptor = descriptor
        self._size = self._started_size = len(data)


def _equal(copy: dict[Any, Any], record: dict[Any, Any]) -> bool:
    try:
        return bool(copy == record)
    except (TypeError, ValueError):  # a value that cannot tell whether it is equal
        return False


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_write(descriptor, view) :]


def read(path: str) -> dict[Any, Any]:
    """The dictionary as last saved to ``path`` (to its last whole save)."""
    kept: dict[Any, Any] = {}
    with open(path, "rb") as file:
        while True:
            try:
                full, changes = pickle.load(file)
            except (EOFError, pickle.UnpicklingError):
                break  # the end, or a save cut short by a kill
            if full:
                kept = {}
            for key, change in changes.items():
                if change[0] == "gone":
                    kept.pop(key, None)
                elif change[0] == "value":
                    kept[key] = change[1]
                else:
                    length, parts = change[1], change[2]
                    records = kept[key] if isinstance(kept.get(key), list) else []
                    del records[length:]
                    records.extend([b""] * (length - len(records)))
                    for position, data in parts.items():
                        records[position] = data
                    kept[key] = records
    return {
        key: [pickle.loads(r) for r in value] if isinstance(value, list) else pickle.loads(value)
        for key, value in kept.items()
    }
