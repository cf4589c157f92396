"""Reading back the log blocks `durable_snapshots` makes: a store put together again from
its last snapshot and the blocks after it (`replay`), and a commit file of the earlier
format, one snapshot a file (`decode_whole`). ``pickle`` imports the classes the pieces
name, so the runtime's ops store is read only once langgraph-api may be imported."""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

from agent_tui.local.durable_snapshots import APPENDED, LENGTH


def split(body: bytes) -> list[bytes]:
    frames: list[bytes] = []
    at = 0
    while at < len(body):
        (length,) = LENGTH.unpack_from(body, at)
        at += LENGTH.size
        frames.append(body[at : at + length])
        at += length
    return frames


def replay(blocks: Iterable[bytes]) -> dict[Any, Any]:
    """The mapping a snapshot and the blocks after it describe (`pickle` imports the
    classes the pieces name)."""
    order: list[Any] = []
    layout: dict[Any, tuple[str, list[int]]] = {}
    pieces: dict[int, bytes] = {}
    for body in blocks:
        frames = split(body)
        new_order, changed, tokens = pickle.loads(frames[0])
        if new_order is not None:
            order = new_order
        for key, (kind, listed) in changed.items():
            if kind.endswith(APPENDED):
                kind = kind.removesuffix(APPENDED)
                listed = layout[key][1] + listed
            layout[key] = (kind, listed)
        pieces.update(zip(tokens, frames[1:], strict=True))
    result: dict[Any, Any] = {}
    for key in order:
        kind, tokens = layout[key]
        _put_back(result, key, kind, [pickle.loads(pieces[token]) for token in tokens])
    return result


def decode_whole(body: bytes) -> dict[Any, Any]:
    """A commit of the earlier format (one snapshot a file: the layout ``(key, kind,
    count)``, then the pieces), as data folders made before the log hold them."""
    frames = split(body)
    layout = pickle.loads(frames[0])
    pieces = iter(frames[1:])
    result: dict[Any, Any] = {}
    for key, kind, count in layout:
        _put_back(result, key, kind, [pickle.loads(next(pieces)) for _ in range(count)])
    return result


def _put_back(result: dict[Any, Any], key: Any, kind: str, loaded: list[Any]) -> None:
    """A part's pieces into the mapping, as `durable_snapshots` cut them."""
    if kind == "whole" and key is None:
        result.update(loaded[0])
    elif kind == "whole":
        result[key] = loaded[0]
    elif kind == "list":
        result[key] = loaded
    else:  # entries, items: (key, value) pairs
        result.update(loaded)
