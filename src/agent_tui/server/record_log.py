"""One dictionary of the runtime's records (threads, runs, assistants, crons …)
kept in a file as a log: a save appends what changed since the last one, so it costs what
changed, not what is kept.

The file is a run of frames (`frame`: a marker, the length and CRC-32 of a pickle, the
pickle), one per record changed, so damage costs only what it hit. A save is ``("begin",
full)``, its changes, ``("end",)``: ``full`` starts over (the first save of a process, then
every `FULL_EVERY` saves or when the file has doubled: a new file written whole and renamed
over the old one). A change is ``("list", key, length)`` and ``("record", key, position,
record pickle)`` for each changed record of a list of records (the runtime appends to its
lists and rebuilds them to delete), ``("value", key, pickle)`` for anything else,
``("gone", key)`` for a key removed. A record is changed when one of its values is another object or unequal: the
lists are compared with a shallow copy kept from the last save, in C (``map(ne, …)``),
so an unchanged list costs no Python loop. A value changed in place inside a record is
seen at the next full save only.

A process killed during an append leaves a save without its end: `read` leaves it out,
and the next process starts its file over. A damaged frame (its CRC does not match) is
skipped up to the next marker; the rest is read, and `Recovered` says what was lost.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import os
import pickle
import struct
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# Taken before langgraph-api's blocking-call guard wraps them (it starts with the queue,
# after this module is imported): these writes are on purpose, on the event loop.
_open, _write, _close, _replace = os.open, os.write, os.close, os.replace

Change = tuple[Any, ...]
MARKER = b"\xa7RL1"
HEADER = struct.Struct("<II")  # the pickle's length, its CRC-32


def frame(item: tuple[Any, ...]) -> bytes:
    data = pickle.dumps(item, 5)
    return MARKER + HEADER.pack(len(data), zlib.crc32(data)) + data


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
        data = _frames(full, changes)
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


def _frames(full: bool, changes: dict[Any, Change]) -> bytes:
    parts = [frame(("begin", full))]
    for key, change in changes.items():
        if change[0] == "list":
            parts.append(frame(("list", key, change[1])))
            parts.extend(frame(("record", key, p, data)) for p, data in change[2].items())
        elif change[0] == "value":
            parts.append(frame(("value", key, change[1])))
        else:
            parts.append(frame(("gone", key)))
    parts.append(frame(("end",)))
    return b"".join(parts)


@dataclass
class Recovered:
    """What `recover` read back from a file, and what it could not."""

    mapping: dict[Any, Any]
    damaged: list[tuple[int, int]] = field(default_factory=list)
    """The byte ranges (start, end) that could not be read."""
    missing: int = 0
    """Records in a list whose every saved copy was in a damaged range (left out)."""


def read(path: str) -> dict[Any, Any]:
    """The dictionary as last saved to ``path`` (to its last whole save)."""
    return recover(path).mapping


def recover(path: str) -> Recovered:
    """As `read`, with what damage cost."""
    with open(path, "rb") as file:
        data = file.read()
    kept: dict[Any, Any] = {}
    recovered = Recovered({})
    save: list[tuple[Any, ...]] | None = None
    damage_before = 0  # damaged ranges found before the save being read
    for item in _items(data, recovered.damaged):
        kind = item[0]
        if kind == "begin":
            if save is not None:  # its end was damaged: what was read of it counts
                _apply(kept, save)
            save, damage_before = [item], len(recovered.damaged)
        elif kind == "end":
            if save is not None:
                _apply(kept, save)
            save = None
        else:
            if save is None:  # its beginning was damaged
                save, damage_before = [("begin", False)], len(recovered.damaged) - 1
            save.append(item)
    # A save without its end was cut short by a kill (it was never acknowledged), unless
    # damage inside it took its end.
    if save is not None and len(recovered.damaged) > damage_before:
        _apply(kept, save)
    for key, value in kept.items():
        if isinstance(value, list):
            whole = [pickle.loads(r) for r in value if r]
            recovered.missing += len(value) - len(whole)
            recovered.mapping[key] = whole
        else:
            recovered.mapping[key] = pickle.loads(value)
    return recovered


def _items(data: bytes, damaged: list[tuple[int, int]]) -> Iterator[tuple[Any, ...]]:
    """The frames of ``data`` whose CRC matches; each stretch that cannot be read is put
    in ``damaged``, except a frame cut short at the very end (a kill during a write)."""
    position = 0
    while position < len(data):
        if data.startswith(MARKER, position) and position + 12 <= len(data):
            length, crc = HEADER.unpack_from(data, position + 4)
            start, end = position + 12, position + 12 + length
            if end > len(data) and data.find(MARKER, position + 1) < 0:
                return  # cut short at the end
            if end <= len(data) and zlib.crc32(data[start:end]) == crc:
                yield pickle.loads(data[start:end])
                position = end
                continue
        following = data.find(MARKER, position + 1)
        if following < 0 and position + 12 > len(data):
            return  # a header cut short at the end
        damaged.append((position, following if following >= 0 else len(data)))
        if following < 0:
            return
        position = following


def _apply(kept: dict[Any, Any], save: list[tuple[Any, ...]]) -> None:
    if save[0][1]:  # a full save
        kept.clear()
    for item in save[1:]:
        kind, key = item[0], item[1]
        if kind == "gone":
            kept.pop(key, None)
        elif kind == "value":
            kept[key] = item[2]
        else:
            records = kept[key] if isinstance(kept.get(key), list) else []
            if kind == "list":
                del records[item[2] :]
                records.extend([b""] * (item[2] - len(records)))
            else:
                position = item[2]
                records.extend([b""] * (position + 1 - len(records)))
                records[position] = item[3]
            kept[key] = records
