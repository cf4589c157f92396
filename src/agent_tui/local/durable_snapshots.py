"""Pickling the in-memory runtime's stores in pieces, again only the pieces that changed.

Pickling a store whole at every commit cost O(all threads and runs): 25 ms and more with a
few hundred threads, before every answer. So a store is cut into pieces: a record (a thread,
a run, an assistant …) of the runtime's ``.langgraph_ops.pckl`` lists, a namespace of the
store's items. A piece's pickle is kept with the values its record held when pickled, and
reused while the record still holds the very same values (compared by identity, and held,
so an identity is never reused by a new object while compared). The runtime changes a
record by setting its keys (``run["status"] = …``, ``thread.update(…)``), and a store item
by replacing it, which this sees. A change made inside a value in place, with nothing of
the record set, would not be seen: the runtime's one such change (a thread's
``metadata["graph_id"]``) comes with new ``updated_at`` and ``status`` values; and the
first commit `Committer.FULL_EVERY` seconds or more after the last full one pickles every
piece again.

A snapshot is written as frames (a 4-byte length, then a pickle): first the layout (key,
kind, number of frames), then the pieces. `decode` puts the mapping back
together, where the runtime loads it (it must import what the pickles name).
"""

from __future__ import annotations

import operator
import pickle
import struct
from collections.abc import Mapping
from typing import Any, Literal

Shape = Literal["records", "namespaces", "whole"]
"""``records``: a mapping of lists of records, a piece per record (the runtime's ops
store); ``namespaces``: a mapping of mappings, a piece per entry (store items);
``whole``: one piece."""

_LENGTH = struct.Struct(">I")
_PROTOCOL = 5  # `pickle.load` reads it; 20% faster than the runtime's own protocol 2


class _Piece:
    __slots__ = ("frame", "target", "values")

    def __init__(self, target: Any, values: tuple[Any, ...], frame: bytes) -> None:
        self.target = target
        self.values = values
        self.frame = frame  # its length, then its pickle


class Snapshotter:
    """Makes the frames of one store, reusing the pickles of pieces that did not change."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self._pieces: dict[int, _Piece] = {}
        self._frames: list[bytes] = []

    def frames(self, mapping: Mapping[Any, Any], *, full: bool = False) -> list[bytes] | None:
        """The store's frames, or None when they are the ones last `written`."""
        old = {} if full else self._pieces
        new: dict[int, _Piece] = {}
        layout: list[tuple[Any, str, int]] = []
        frames: list[bytes] = [b""]
        if self.shape == "whole":
            layout.append((None, "whole", 1))
            frames.append(_frame(dict(mapping)))
        elif self.shape == "namespaces":
            entries = list(mapping.items())
            layout.append((None, "entries", len(entries)))
            for key, inner in entries:
                frames.append(_piece(old, new, inner, label=key))
        else:
            for key, value in list(mapping.items()):
                if isinstance(value, list):
                    records = list(value)
                    layout.append((key, "list", len(records)))
                    frames.extend(_piece(old, new, record) for record in records)
                else:
                    layout.append((key, "whole", 1))
                    frames.append(_frame(value))
        frames[0] = _frame(layout)
        self._pieces = new
        if self._frames == frames:  # a list's `==` takes the same object as equal at once
            return None
        return frames

    def written(self, frames: list[bytes]) -> None:
        """``frames`` are on disk (until then, they are made again and compared)."""
        self._frames = frames


def _piece(old: dict[int, _Piece], new: dict[int, _Piece], target: Any, label: Any = None) -> bytes:
    # A key added or dropped changes the length; one replaced by another with the very
    # same value objects in the same order is not a change the runtime makes.
    values = tuple(target.values()) if isinstance(target, dict) else (target,)
    known = old.get(id(target))
    if (
        known is None
        or known.target is not target
        or len(known.values) != len(values)
        or not all(map(operator.is_, known.values, values))
    ):
        known = _Piece(target, values, _frame(target if label is None else (label, target)))
    new[id(target)] = known
    return known.frame


def _frame(value: Any) -> bytes:
    data = pickle.dumps(value, _PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def encode(frames: list[bytes]) -> bytes:
    return b"".join(frames)


def decode(body: bytes) -> dict[Any, Any]:
    """The mapping `encode` wrote (`pickle` imports the classes its pieces name)."""
    frames: list[bytes] = []
    at = 0
    while at < len(body):
        (length,) = _LENGTH.unpack_from(body, at)
        at += _LENGTH.size
        frames.append(body[at : at + length])
        at += length
    layout = pickle.loads(frames[0])
    pieces = iter(frames[1:])
    result: dict[Any, Any] = {}
    for key, kind, count in layout:
        loaded = [pickle.loads(next(pieces)) for _ in range(count)]
        if kind == "whole" and key is None:
            result.update(loaded[0])
        elif kind == "whole":
            result[key] = loaded[0]
        elif kind == "list":
            result[key] = loaded
        else:  # entries
            result.update(loaded)
    return result
