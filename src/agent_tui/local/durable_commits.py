"""Writing the in-memory runtime's stores to disk before a change is acknowledged.

The runtime keeps threads, runs, assistants, crons, store items and its retry counters
in dictionaries (``PersistentDict``) that it pickles to ``.langgraph_api/`` every 10 s.
`Committer` writes them when asked (`durable_runtime` asks before answering a request
that changed something, and after each run). It works on the event loop, without
awaiting: each store is compared with its last commit (a consistent picture: the runtime
changes them on that loop), and what changed is written.

Each store has a log: two files beside the runtime's own (``<file>.commit-0`` and ``-1``),
one in use. A file starts with a snapshot (every piece of the store, `durable_snapshots`),
and each commit appends a block of the pieces that changed (a thread and a run for a short
run: a few KB, where rewriting the store cost O(all threads and runs), 4 ms a commit with
870 of each). Every block has a header (generation, length, checksum); a crash in the
middle of an append spoils only that block. When the file in use has grown to twice its
snapshot (at least `_Log.COMPACT_AT`), the next commit writes a new snapshot to the other
file (from the pieces' pickles already made: about a millisecond) and appends there from
then on; a crash while it is written leaves the file before whole. A new process starts a
new snapshot too, in the file not holding the newest commit. At the next start,
`restore_committed` replays the newest whole log (the snapshot, then the blocks whose
generations follow on, up to the first that is not whole) where the runtime loads its
files from, before the runtime is imported.

Written in place with ``pwrite`` on descriptors kept open: one system call a commit per
store that changed. Not a temporary file renamed over the old one: on ext4 a rename over an
existing file forces the new file's data out to disk first (``auto_da_alloc``), 2.5 ms
each, and so does a truncation to zero; an in-place write lands in the operating system's
cache in microseconds. A worker thread was slower still: waiting for the GIL on a busy
server cost about 6 ms a commit. No fsync: a commit survives a crash of the process, not
necessarily a power cut.

A write that fails (a full disk, a read-only folder) raises `CommitError`; the caller
refuses the request, and the change stays pending for the next commit. The failure is
logged once, and its recovery once, so the user sees it (``agent-tui serve`` prints the
server's log).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import struct
import time
import zlib
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from agent_tui.local import unguarded
from agent_tui.local.disk_problem import DISK_PROBLEM, DISK_RECOVERED, PROBLEM_END
from agent_tui.local.durable_replay import decode_whole, replay
from agent_tui.local.durable_snapshots import Shape, Snapshotter, encode

T = TypeVar("T")
FULL_NEVER = 1e9

FLUSHES: list[Callable[[], None]] = []
"""Called first by every commit: the checkpointer's `durable_checkpointer` flush (its
changes wait in memory until an answer needs them, then go to its log); each raises
`OSError` if it cannot save."""

logger = logging.getLogger("agent_tui.local.durable")

RUNTIME_FILES = (
    os.path.join(".langgraph_api", ".langgraph_retry_counter.pckl"),
    os.path.join(".langgraph_api", ".langgraph_ops.pckl"),
    os.path.join(".langgraph_api", "store.pckl"),
    os.path.join(".langgraph_api", "store.vectors.pckl"),
)
"""The files the runtime loads its stores from (relative to its working folder)."""

LOADED_AT_IMPORT = (RUNTIME_FILES[0], RUNTIME_FILES[2], RUNTIME_FILES[3])
"""The stores the runtime loads when imported; the ops store is loaded by ``start_pool``
(and its pickles name classes of langgraph-api, which may be imported only then)."""

SHAPES: dict[str, Shape] = {
    RUNTIME_FILES[0]: "items",  # run id: attempts, a piece per run
    RUNTIME_FILES[1]: "records",  # threads, runs, assistants, crons: a piece per record
    RUNTIME_FILES[2]: "namespaces",  # store items: a piece per namespace
}
"""How each store is cut into pieces (`durable_snapshots`); the others are pickled whole."""

_MAGIC = b"agent-tui log v2"  # a block of a log
_WHOLE_MAGIC = b"agent-tui commit"  # a file of the earlier format: one snapshot
_HEADER = struct.Struct(">16sQQI")  # magic, generation, length, CRC-32 of the data


class CommitError(OSError):
    """The stores could not be written: the change is not kept."""


Source = tuple[str, Any]
"""A file name and the dictionary (a ``PersistentDict``-like mapping) saved there."""


def commit_file(filename: str, slot: int) -> str:
    """One of a store's two log files (``slot`` 0 or 1)."""
    return f"{filename}.commit-{slot}"


class Committer:
    """Writes ``sources()`` (read anew at each commit: the runtime may replace a
    dictionary) to their commit files.

    `commit` flushes `FLUSHES` (the checkpoints) and writes at once. `request` shares commits between callers on the event loop:
    every caller that asked before a commit started is answered by it. An urgent request
    (an answer waits for it) starts one on the loop's next turn, or, if the last one ended
    less than its own length ago, once that time has passed: under load commits take at
    most half the loop's time. A background request (a run started or ended) waits up to
    `BACKGROUND_DELAY` for an urgent one to join.

    A request may name the only threads whose records its caller changed
    (`durable_runtime.changed_threads`): a commit for such requests alone compares the
    records of those threads (and sees every record added, dropped or moved), not the
    thousands of others; one of everything follows within `EVERYTHING_WITHIN`, so a change
    that reading missed is still on disk well within a second. A commit after a failed one
    looks at everything.

    Every `FULL_EVERY` seconds a commit pickles every piece again (about 40 ms for 870
    threads and runs), to catch a change made inside a value in place (`durable_snapshots`);
    the runtime makes none that matters, so it is rare.
    """

    SPACING = 1.0
    BACKGROUND_DELAY = 0.1
    FULL_EVERY = 30.0
    EVERYTHING_WITHIN = 0.5

    def __init__(
        self,
        sources: Callable[[], Sequence[Source]],
        newest: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self._sources = sources
        self._newest = dict(newest or {})
        self._logs: dict[str, _Log] = {}
        self._snapshotters: dict[str, Snapshotter] = {}
        self._last_full = -FULL_NEVER
        self._closed = False
        self._pending: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self._urgent = False
        self._next_allowed = 0.0
        self._telling: set[str] = set()  # `tells`
        self._untouched: set[str] = set()  # of those, written and unchanged since
        self._threads: set[str] | None = set()  # what the pending requests name (None: all)
        self._everything_due = True  # the next commit looks at every record
        self._sweep: asyncio.TimerHandle | None = None
        # The data folder (the working folder), named in the problem: asked now, since
        # the event loop may not block on `os.getcwd` later.
        self._folder = os.getcwd()
        self.problem: str | None = None
        """Why the last commit failed (None: it succeeded)."""

    def commit(self, threads: Collection[str] | None = None) -> None:
        """Return once every change made so far is written (with ``threads``: every
        change but those inside the records of other threads, `durable_snapshots`);
        `CommitError` if it cannot be. After `close`, returns at once (the runtime saves
        on its way out)."""
        if self._closed:
            return
        now = time.monotonic()
        full = now - self._last_full >= self.FULL_EVERY
        if self._everything_due:
            threads = None
        try:
            for flush in list(FLUSHES):
                flush()
            for filename, mapping in self._sources():
                if threads is not None and not full and filename in self._untouched:
                    continue  # it says it has not changed (`told`)
                self._write(filename, mapping, full=full, threads=threads)
                self._untouched.discard(filename)
                if filename in self._telling:
                    self._untouched.add(filename)
            if full:
                self._last_full = now
        except OSError as exc:
            self._everything_due = True  # what this one missed is not known
            self._failed(exc)
            raise CommitError(exc.errno, self.problem) from exc
        self._everything_due = False
        if self.problem is not None:
            self.problem = None
            logger.warning(DISK_RECOVERED)

    def tells(self, filename: str) -> None:
        """The store in ``filename`` calls `changed` whenever it changes: a run's commit
        leaves it alone until then (its commits look at every piece of the store; the
        retry counter has one a run ever made). A commit of everything still writes it."""
        self._telling.add(filename)

    def changed(self, filename: str) -> None:
        self._untouched.discard(filename)

    def close(self) -> None:
        """Make later commits no-ops."""
        self._closed = True
        self._close_logs()

    def request(
        self, *, urgent: bool = True, threads: Collection[str] | None = None
    ) -> asyncio.Future[None]:
        """A future done when a commit that started after this call has ended (its
        exception a `CommitError` if the commit failed). On the event loop's thread.
        ``threads``: the only threads whose records the caller may have changed (records
        added or dropped are always seen); None: any."""
        loop = asyncio.get_running_loop()
        if threads is None or self._threads is None:
            self._threads = None
        else:
            self._threads.update(threads)
        if self._pending is None:
            self._pending = loop.create_future()
            # Nobody may await it (a run's end): its failure is logged, not left unread.
            self._pending.add_done_callback(_read_outcome)
        if urgent and not self._urgent:
            self._urgent = True
            if self._timer is not None:
                self._timer.cancel()
            delay = self._next_allowed - loop.time()
            self._timer = (
                loop.call_later(delay, self._flush, loop)
                if delay > 0
                else loop.call_soon(self._flush, loop)
            )
        elif self._timer is None:
            self._timer = loop.call_later(self.BACKGROUND_DELAY, self._flush, loop)
        return self._pending

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        pending, self._pending = self._pending, None
        threads, self._threads = self._threads, set()
        self._timer, self._urgent = None, False
        assert pending is not None
        began = loop.time()
        try:
            self.commit(threads)
        except CommitError as exc:
            pending.set_exception(exc)
        except Exception as exc:  # a bug: the answers waiting on it must not wait forever
            logger.exception("agent-tui: a commit failed")
            self._everything_due = True
            pending.set_exception(CommitError(0, f"the commit failed: {exc!r}"))
        else:
            pending.set_result(None)
        ended = loop.time()
        self._next_allowed = ended + (ended - began) * self.SPACING
        if threads is not None and self._sweep is None:
            self._sweep = loop.call_later(self.EVERYTHING_WITHIN, self._sweep_now)

    def _sweep_now(self) -> None:
        self._sweep = None
        self._everything_due = True
        self.request(urgent=False)

    def _write(
        self, filename: str, mapping: Any, *, full: bool, threads: Collection[str] | None
    ) -> None:
        snapshotter = self._snapshotters.get(filename)
        if snapshotter is None:
            snapshotter = Snapshotter(SHAPES.get(filename, "whole"))
            self._snapshotters[filename] = snapshotter
        log = self._logs.get(filename)
        if log is None:
            log = self._logs[filename] = _Log(filename, self._newest.get(filename))
        block = _taken(lambda: snapshotter.changes(mapping, full=full, threads=threads))
        if log.wants_snapshot():
            log.write(encode(snapshotter.snapshot()), snapshot=True)
        elif block is not None:
            log.write(encode(block), snapshot=False)
        snapshotter.written()

    def _close_logs(self) -> None:
        for log in self._logs.values():
            log.close()

    def _failed(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        problem = f"{DISK_PROBLEM} in {self._folder}: {reason}; {PROBLEM_END}"
        if problem != self.problem:
            logger.error(problem)
        self.problem = problem


def _read_outcome(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


class _Log:
    """The log of one store: where the next block goes, and the descriptors written to."""

    COMPACT_AT = 1 << 20
    """A log grows to twice its snapshot, and at least this, before a new snapshot."""

    def __init__(self, filename: str, newest: tuple[int, int] | None) -> None:
        self.filename = filename
        # The newest commit's generation and file: a new snapshot goes to the other one.
        self.generation, self.slot = newest if newest is not None else (0, 1)
        self.end: int | None = None  # where the next block goes; None: a snapshot first
        self.limit = 0
        self._descriptors: dict[int, int] = {}

    def wants_snapshot(self) -> bool:
        return self.end is None or self.end >= self.limit

    def write(self, data: bytes, *, snapshot: bool) -> None:
        """Write a block; nothing changes here if it fails (`OSError`): the next try
        writes the same place again."""
        generation = self.generation + 1
        slot, at = (1 - self.slot, 0) if snapshot else (self.slot, self.end or 0)
        header = _HEADER.pack(_MAGIC, generation, len(data), zlib.crc32(data))
        _write_at(self._descriptor(slot), header + data, at)
        self.generation, self.slot, self.end = generation, slot, at + len(header) + len(data)
        if snapshot:
            self.limit = max(2 * self.end, self.COMPACT_AT)

    def close(self) -> None:
        for descriptor in self._descriptors.values():
            with contextlib.suppress(OSError):
                os.close(descriptor)
        self._descriptors.clear()

    def _descriptor(self, slot: int) -> int:
        descriptor = self._descriptors.get(slot)
        if descriptor is None:
            path = commit_file(self.filename, slot)
            descriptor = unguarded.open_descriptor(
                path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644
            )
            self._descriptors[slot] = descriptor
        return descriptor


def _write_at(descriptor: int, data: bytes, at: int) -> None:
    """Write ``data`` at ``at`` in place (bytes left past its end from an earlier, longer
    log are ignored: their generations do not follow on)."""
    view = memoryview(data)
    while view:
        written = unguarded.pwrite(descriptor, view, at)
        view, at = view[written:], at + written


def newest_commits(filenames: Iterable[str] = RUNTIME_FILES) -> dict[str, tuple[int, int]]:
    """Each store's newest whole commit: its generation and the file holding it, for the
    `Committer` to go on from (reads only our files: safe before the runtime is
    imported)."""
    found = {}
    for filename in filenames:
        newest = _newest(filename)
        if newest is not None:
            found[filename] = (newest.generation, newest.slot)
    return found


def restore_committed(filenames: Iterable[str]) -> None:
    """Put each store's newest whole commit where the runtime loads it, unless the
    runtime's own file is newer (it writes it at a clean stop). The pickles name the
    runtime's classes: call it once they may be imported."""
    for filename in filenames:
        newest = _newest(filename)
        if newest is None:
            continue
        try:
            if os.path.getmtime(filename) > newest.written_at:
                continue
        except OSError:
            pass  # no file of the runtime's own
        mapping = decode_whole(newest.blocks[0]) if newest.whole else replay(newest.blocks)
        temporary = f"{filename}.restore"
        with open(temporary, "wb") as file:
            pickle.dump(mapping, file, 2)  # as `PersistentDict.dump` writes it
        os.replace(temporary, filename)


class _Found(NamedTuple):
    generation: int
    slot: int
    blocks: list[bytes]
    written_at: float
    whole: bool  # the earlier format: one snapshot, no log


def _newest(filename: str) -> _Found | None:
    newest: _Found | None = None
    for slot in (0, 1):
        found = _read_log(filename, slot)
        if found is not None and (newest is None or found.generation > newest.generation):
            newest = found
    return newest


def _read_log(filename: str, slot: int) -> _Found | None:
    path = commit_file(filename, slot)
    try:
        with open(path, "rb") as file:
            content = file.read()
        written_at = os.path.getmtime(path)
    except OSError:
        return None
    blocks: list[bytes] = []
    generation = 0
    at = 0
    while True:
        block = _block(content, at)
        if block is None:
            break
        magic, number, data = block
        if blocks and (magic != _MAGIC or number != generation + 1):
            break  # left from an earlier use of the file (or the earlier format's tail)
        blocks.append(data)
        generation = number
        at += _HEADER.size + len(data)
        if magic == _WHOLE_MAGIC:
            return _Found(generation, slot, blocks, written_at, whole=True)
    if not blocks:
        return None
    return _Found(generation, slot, blocks, written_at, whole=False)


def _block(content: bytes, at: int) -> tuple[bytes, int, bytes] | None:
    """The block at ``at``, if it is whole: (magic, generation, data)."""
    if len(content) - at < _HEADER.size:
        return None
    magic, generation, length, checksum = _HEADER.unpack_from(content, at)
    data = content[at + _HEADER.size : at + _HEADER.size + length]
    if magic not in (_MAGIC, _WHOLE_MAGIC) or len(data) != length:
        return None
    if zlib.crc32(data) != checksum:
        return None  # cut short by a crash
    return magic, generation, data


def _taken(take: Callable[[], T]) -> T:
    """``take()``, again if another thread changed a dictionary while it was read."""
    for _ in range(4):
        try:
            return take()
        except RuntimeError:  # "dictionary changed size during iteration"
            continue
    return take()
