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

A snapshot is written as frames (a 4-byte length, then the bytes): first a pickled layout
(key, kind, number of frames), then the pieces' pickles. `decode` puts the mapping back
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
    __slots__ = ("data", "keys", "target", "values")

    def __init__(self, target: Any, keys: tuple[Any, ...], values: tuple[Any, ...], data: bytes):
        self.target = target
        self.keys = keys
        self.values = values
        self.data = data


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
            frames.append(pickle.dumps(dict(mapping), _PROTOCOL))
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
                    frames.append(pickle.dumps(value, _PROTOCOL))
        frames[0] = pickle.dumps(layout, _PROTOCOL)
        self._pieces = new
        if self._frames == frames:  # a list's `==` takes the same object as equal at once
            return None
        return frames

    def written(self, frames: list[bytes]) -> None:
        """``frames`` are on disk (until then, they are made again and compared)."""
        self._frames = frames


def _piece(old: dict[int, _Piece], new: dict[int, _Piece], target: Any, label: Any = None) -> bytes:
    if isinstance(target, dict):
        keys, values = tuple(target), tuple(target.values())
    else:
        keys, values = (), (target,)
    known = old.get(id(target))
    if (
        known is not None
        and known.target is target
        and known.keys == keys
        and len(known.values) == len(values)
        and all(map(operator.is_, known.values, values))
    ):
        data = known.data
    else:
        data = pickle.dumps(target if label is None else (label, target), _PROTOCOL)
    new[id(target)] = _Piece(target, keys, values, data)
    return data


def encode(frames: list[bytes]) -> bytes:
    return b"".join(part for frame in frames for part in (_LENGTH.pack(len(frame)), frame))


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
