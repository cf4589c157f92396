"""The in-memory runtime's stores cut into pieces, and what changed since the last commit.

A commit must cost little next to a run of a few milliseconds, however many threads and
runs the stores hold. So a store is cut into pieces (a record of the runtime's
``.langgraph_ops.pckl`` lists: a thread, a run, an assistant …; a namespace of the store's
items; an entry of the retry counter), each piece pickled once, and a commit writes only the
pieces that changed (`durable_commits` appends them to a log).

Finding them is the cost that grows with the stores, so it is done with loops that run in C
(``map``, ``compress``, a list's ``==``), about 0.1 µs a record, not one Python call per
record (2 ms for 1,700 records before): the record lists are compared by the identity of
their records, and each record by its values, against copies of both taken at the last
commit (held, so an identity is never reused by a new object while compared). A value is
taken as unchanged when it is the very object, or one equal to it (a changed value is a new
object: the runtime changes a record by setting its keys, ``run["status"] = …``,
``thread.update(…)``, and a store item by replacing it). A record whose values cannot be
compared (an ``==`` that raises) is taken as changed. A change made inside a value in place,
with nothing of the record set, would not be seen: the runtime's one such change (a
thread's ``metadata["graph_id"]``) comes with new ``updated_at`` and ``status`` values; and
a ``full`` look (`Committer.FULL_EVERY`) pickles every piece again and keeps those whose
bytes changed.

A block of the log is frames (a 4-byte length, then a pickle): a head ``(order, parts,
tokens)`` (the store's keys in order, or None if as before; the parts whose pieces changed
order or number: ``{key: (kind, [token …])}``, the kind ending in ``+`` when the tokens
only follow on the earlier ones); the tokens of the pieces that follow), then
the pieces. A token names a piece from the log's snapshot on (a snapshot is a block with
everything). `durable_replay` puts the mapping back together.
"""

from __future__ import annotations

import io
import operator
import pickle
import struct
import uuid
from collections.abc import Collection, Iterable, Mapping
from itertools import compress
from typing import Any, Literal

Shape = Literal["records", "namespaces", "items", "whole"]
"""``records``: a mapping of lists of records, a piece per record (the runtime's ops
store); ``namespaces``: a mapping of mappings, a piece per entry, compared by the inner
mapping's values (store items); ``items``: a mapping of unchangeable values (the retry
counter), a piece per entry; ``whole``: one piece, pickled at each commit."""

BY_THREAD = frozenset({"threads", "runs"})
"""The ops store's lists whose records name their thread (``thread_id``)."""

APPENDED = "+"  # a part's kind in a head, when the tokens given follow its earlier ones
LENGTH = struct.Struct(">I")  # before each frame
_PROTOCOL = 5  # `pickle.load` reads it; 20% faster than the runtime's own protocol 2


class _Part:
    """A list of pieces (or a whole value) as last written, and what it was made of."""

    __slots__ = (
        "by_thread",
        "copies",
        "frames",
        "kept",
        "kind",
        "labels",
        "source",
        "targets",
        "tokens",
    )

    def __init__(self, kind: str, targets: list[Any], labels: list[Any] | None) -> None:
        self.kind = kind
        self.targets = targets  # held: their identities stay theirs while compared
        self.labels = labels
        self.copies: list[Any] = []  # what each piece held when pickled
        self.tokens: list[int] = []
        self.frames: list[bytes] = []
        self.by_thread: dict[str, list[int]] | None = None  # `_by_thread`
        self.kept: int | None = None  # `Snapshotter._share`: how many were the old part's
        self.source: list[Any] | None = None  # the store's own list (`_only_appended`)


Block = list[bytes]
"""The frames of one block of the log (its head first)."""


class Snapshotter:
    """What changed in one store since the last `written`, as a block of the log."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self._parts: dict[Any, _Part] = {}
        self._order: list[Any] = []
        self._proposed: tuple[dict[Any, _Part], list[Any]] | None = None
        self._next_token = 0
        # What `changes` did to lists shared with the parts last written, undone if they
        # are not written after all (`_undo`).
        self._grown: list[tuple[list[Any], int]] = []
        self._replaced: list[tuple[list[Any], int, Any]] = []

    def changes(
        self,
        mapping: Mapping[Any, Any],
        *,
        full: bool = False,
        threads: Collection[str] | None = None,
    ) -> Block | None:
        """The block of what changed since the last `written` (None: nothing did). A
        ``full`` look pickles every piece again and compares the bytes. With
        ``threads``, the records of `BY_THREAD` lists are compared only if they belong to
        those threads (pieces added, dropped or moved are always seen)."""
        self._undo()
        emitted: list[tuple[int, bytes]] = []
        changed: dict[Any, tuple[str, list[int]]] = {}
        parts: dict[Any, _Part] = {}
        for key, kind, targets, labels in self._cut(mapping):
            old = self._parts.get(key)
            if old is not None and old.kind != kind:
                old = None
            only = threads if key in BY_THREAD and not full else None
            part = self._diff(old, kind, targets, labels, emitted, full=full, threads=only)
            parts[key] = part
            if part.kept is not None:  # the old tokens, maybe some appended
                if len(part.tokens) > part.kept:
                    changed[key] = (kind + APPENDED, part.tokens[part.kept :])
            elif old is None or part.tokens != old.tokens:
                count = len(old.tokens) if old is not None else 0
                if old is not None and part.tokens[:count] == old.tokens:
                    changed[key] = (kind + APPENDED, part.tokens[count:])
                else:
                    changed[key] = (kind, part.tokens)
        order = list(parts)
        self._proposed = (parts, order)
        if not emitted and not changed and order == self._order:
            return None
        head = (order if order != self._order else None, changed, [t for t, _ in emitted])
        return [_frame(head), *(frame for _, frame in emitted)]

    def snapshot(self) -> Block:
        """A block of everything (after `changes`: as it found the store)."""
        parts, order = self._proposed or (self._parts, self._order)
        layout = {key: (part.kind, part.tokens) for key, part in parts.items()}
        tokens = [t for part in parts.values() for t in part.tokens]
        frames = [f for part in parts.values() for f in part.frames]
        return [_frame((order, layout, tokens)), *frames]

    def written(self) -> None:
        """The last `changes` are on disk: the next ones are counted from there."""
        if self._proposed is not None:
            self._parts, self._order = self._proposed
            self._proposed = None
        self._grown.clear()
        self._replaced.clear()

    def _undo(self) -> None:
        """Put the lists shared with the parts last written back as they were (the last
        `changes` were not written: a failed write, or a dictionary changed while read)."""
        for values, index, value in reversed(self._replaced):
            values[index] = value
        for values, length in self._grown:
            del values[length:]
        self._grown.clear()
        self._replaced.clear()
        self._proposed = None

    def _share(self, old: _Part, new: _Part, count: int | None = None) -> int:
        """Give ``new`` the lists of ``old`` (whose first ``count`` pieces, all of them by
        default, it holds in the same order, some maybe appended): no copy of a list per
        commit; `_undo` puts them back if need be."""
        if count is None:
            count = len(old.targets)
        new.copies, new.tokens, new.frames = old.copies, old.tokens, old.frames
        new.kept = count
        self._grown += ((old.copies, count), (old.tokens, count), (old.frames, count))
        return count

    def _cut(self, mapping: Mapping[Any, Any]) -> Iterable[tuple[Any, str, list[Any], Any]]:
        """(key, kind, pieces, their labels) per part (a list part's pieces: the store's
        list itself)."""
        if self.shape == "whole":
            yield None, "whole", [dict(mapping)], None
        elif self.shape in ("namespaces", "items"):
            # Items hold unchangeable values: a value equal to the last is unchanged.
            kind = "items" if self.shape == "items" else "entries"
            yield None, kind, list(mapping.values()), list(mapping.keys())
        else:
            for key, value in list(mapping.items()):
                if isinstance(value, list):
                    yield key, "list", value, None  # the store's own: `_diff` copies it
                else:
                    yield key, "whole", [value], None

    def _diff(
        self,
        old: _Part | None,
        kind: str,
        targets: list[Any],
        labels: list[Any] | None,
        emitted: list[tuple[int, bytes]],
        *,
        full: bool,
        threads: Collection[str] | None = None,
    ) -> _Part:
        source = targets if kind == "list" else None
        if old is not None and threads is not None and _only_appended(old, source):
            # The very list of the last commit, only appended to: nothing to compare but
            # the given threads' records, and no copy of the list (O(changes), not O(all
            # records): 40 µs a commit with 3,000 threads and runs, and growing).
            assert source is not None
            count = len(old.targets)
            if old.by_thread is None:
                _by_thread(old)  # of the old pieces: `_appended` adds the new ones
            new = _Part(kind, old.targets, None)
            new.targets += source[count:]
            self._grown.append((old.targets, count))
            return self._threads_only(old, new, threads, emitted, source, count)
        if source is not None:
            targets = list(source)
        new = _Part(kind, targets, labels)
        new.source = source
        if kind == "whole":  # small: pickled each time, its bytes compared
            frame = _frame(targets[0])
            token = old.tokens[0] if old is not None else self._token()
            if old is None or old.frames[0] != frame:
                emitted.append((token, frame))
            new.copies, new.tokens, new.frames = [None], [token], [frame]
            return new
        if old is not None and threads is not None and _kept(old, new):
            return self._threads_only(old, new, threads, emitted, source)
        same = _unchanged(old, new) if old is not None else None
        if old is not None and same is not None:
            # The common case: the same pieces in the same order, maybe some appended.
            count = self._share(old, new)
            new.by_thread = old.by_thread
            if full:
                again: Iterable[int] = range(count)
            elif same is _ALL_SAME or all(same):  # in C: no call per piece
                again = ()
            else:
                again = compress(range(count), map(operator.not_, same))
            for index in again:
                self._piece(new, index, index, emitted)
            self._appended(new, count, emitted)
            return new
        # Pieces dropped or moved: matched one by one, an entry by its key (two entries may
        # hold the very same value), a record by its identity.
        known: dict[Any, int] = {}
        if old is not None:
            known = dict(
                zip(
                    old.labels if old.labels is not None else map(id, old.targets),
                    range(len(old.targets)),
                    strict=True,
                )
            )
        for index, target in enumerate(targets):
            at = known.get(labels[index] if labels is not None else id(target))
            if old is not None and at is not None:
                new.copies.append(old.copies[at])
                new.tokens.append(old.tokens[at])
                new.frames.append(old.frames[at])
                if full or not _same(target, old.copies[at]):
                    self._piece(new, index, index, emitted)
            else:
                new.copies.append(None)
                new.tokens.append(self._token())
                new.frames.append(b"")
                self._piece(new, index, index, emitted)
        return new

    def _threads_only(
        self,
        old: _Part,
        new: _Part,
        threads: Collection[str],
        emitted: list[tuple[int, bytes]],
        source: list[Any] | None,
        count: int | None = None,
    ) -> _Part:
        """``new`` holds ``old``'s pieces in order, maybe some appended: only the given
        threads' records (found by `_Part.by_thread`) and the appended ones are looked at."""
        new.source = source
        count = self._share(old, new, count)
        new.by_thread = old.by_thread if old.by_thread is not None else _by_thread(old)
        targets = new.targets
        for thread in threads:
            for index in new.by_thread.get(thread, ()):
                if index < count and not _same(targets[index], old.copies[index]):
                    self._piece(new, index, index, emitted)
        self._appended(new, count, emitted)
        return new

    def _appended(self, new: _Part, count: int, emitted: list[tuple[int, bytes]]) -> None:
        for index in range(count, len(new.targets)):
            new.copies.append(None)
            new.tokens.append(self._token())
            new.frames.append(b"")
            self._piece(new, index, index, emitted)
            if new.by_thread is not None:
                # Shared with the part before: an index past its end is skipped there.
                new.by_thread.setdefault(_thread_of(new.targets[index]), []).append(index)

    def _piece(self, part: _Part, index: int, at: int, emitted: list[tuple[int, bytes]]) -> None:
        """Pickle piece ``index`` again (its copy taken now), emitted if its bytes differ."""
        target = part.targets[index]
        self._replaced.append((part.copies, at, part.copies[at]))
        part.copies[at] = _copy(target)
        frame = _frame(target if part.labels is None else (part.labels[index], target))
        if frame != part.frames[at]:
            self._replaced.append((part.frames, at, part.frames[at]))
            part.frames[at] = frame
            emitted.append((part.tokens[at], frame))

    def _token(self) -> int:
        self._next_token += 1
        return self._next_token


def _copy(target: Any) -> Any:
    """What a piece is compared with at the next commit: a record's (or a namespace's)
    keys and values as they are now, an unchangeable value itself."""
    return dict(target) if isinstance(target, dict) else target


def _thread_of(target: Any) -> str:
    return str(target.get("thread_id")) if isinstance(target, dict) else ""


def _by_thread(part: _Part) -> dict[str, list[int]]:
    """Where each thread's records are in ``part`` (made once, then kept up as records
    are appended; made again when records are dropped or moved)."""
    found: dict[str, list[int]] = {}
    for index, target in enumerate(part.targets):
        found.setdefault(_thread_of(target), []).append(index)
    part.by_thread = found
    return found


def _kept(old: _Part, new: _Part) -> bool:
    """Whether ``new`` holds the very pieces of ``old`` in the same order (some may be
    appended)."""
    count = len(old.targets)
    if len(new.targets) < count:
        return False
    try:
        # The identity of each is compared first; records replaced by equal ones are
        # as good (their thread's records are compared with their copies all the same).
        return bool(_head(new.targets, count) == old.targets)
    except Exception:  # an `==` that raises, or answers no truth
        return all(map(operator.is_, _head(new.targets, count), old.targets))


def _only_appended(old: _Part, source: list[Any] | None) -> bool:
    """Whether the store's list ``source`` is the one ``old`` was read from, with its
    pieces still in place and maybe some appended: its first and its last old piece are
    where they were. The runtime changes the lists a scoped commit looks at
    (`durable_runtime.changed_threads`) only by appending and by dropping records (which
    moves the last old one, or shortens the list); it replaces a record in place only
    when a thread is patched, a request whose commit looks at everything."""
    if source is None or old.source is not source:
        return False
    count = len(old.targets)
    if len(source) < count:
        return False
    return count == 0 or (source[0] is old.targets[0] and source[count - 1] is old.targets[-1])


_ALL_SAME: list[bool] = []
"""`_unchanged`'s answer when every old piece is known unchanged (whatever their number)."""


def _unchanged(old: _Part, new: _Part) -> list[bool] | None:
    """Per old piece, whether it is unchanged, when the new part holds the old pieces in
    the same order (some may be appended); None otherwise."""
    count = len(old.targets)
    try:
        if _head(new.targets, count) != old.targets:
            return None
        if old.labels is not None and (
            new.labels is None or _head(new.labels, count) != old.labels
        ):
            return None
        if old.kind == "items":  # compared above: values, not containers of values
            return _ALL_SAME
        return list(map(bool, map(operator.eq, _head(new.targets, count), old.copies)))
    except Exception:  # an `==` that raises, or answers no truth: by identity, one by one
        if list(map(id, _head(new.targets, count))) != list(map(id, old.targets)):
            return None
        return [_same(target, copy) for target, copy in zip(new.targets, old.copies, strict=False)]


def _head(values: list[Any], count: int) -> list[Any]:
    """The first ``count`` values (the list itself when that is all: no copy)."""
    return values if len(values) == count else values[:count]


def _same(target: Any, copy: Any) -> bool:
    """Whether a piece holds what its copy holds (equal values count as the same)."""
    try:
        return bool(target == copy)
    except Exception:
        if isinstance(target, dict) and isinstance(copy, dict):
            return len(target) == len(copy) and all(
                copy.get(key, _MISSING) is value for key, value in target.items()
            )
        return target is copy


_MISSING = object()


def _uuid(value: uuid.UUID) -> tuple[type[uuid.UUID], tuple[None, None, None, None, int]]:
    return uuid.UUID, (None, None, None, None, value.int)  # UUID(int=…)


_BUFFER = io.BytesIO()
_PICKLER = pickle.Pickler(_BUFFER, _PROTOCOL)
# A record holds several UUIDs; pickled as ``UUID(int=…)`` rather than through
# ``copyreg`` (``__reduce_ex__``, ``_slotnames``, ``__getstate__``: Python calls each), a
# run's record pickles 35% faster (about 2% of a busy server's time went there).
_PICKLER.dispatch_table = {uuid.UUID: _uuid}


def _frame(value: Any) -> bytes:
    """``value`` pickled, after its length (on the committer's thread: one pickler)."""
    _BUFFER.seek(0)
    _BUFFER.truncate()
    _PICKLER.clear_memo()
    _PICKLER.dump(value)
    data = _BUFFER.getvalue()
    return LENGTH.pack(len(data)) + data


def encode(frames: list[bytes]) -> bytes:
    return b"".join(frames)
