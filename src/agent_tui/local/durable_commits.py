"""Writing the in-memory runtime's stores to disk before a change is acknowledged.

The runtime keeps threads, runs, assistants, crons, store items and its retry counters
in dictionaries (``PersistentDict``) that it pickles to ``.langgraph_api/`` every 10 s.
`Committer` writes them when asked (`durable_runtime` asks before answering a request
that changed something, and after each run). It works on the event loop, without
awaiting: each dictionary is pickled (a consistent picture: the runtime changes them on
that loop), and the stores whose bytes changed are written.

Each store has two commit files beside the runtime's own (``<file>.commit-0`` and
``-1``), written in turn, in place: a header (generation, length, checksum), then the
store pickled in pieces, only the changed pieces pickled again (`durable_snapshots`). A crash in the middle of a write spoils only the file being written; the other
holds the previous commit. At the next start, `restore_committed` puts the newest whole
commit where the runtime loads its files from, before the runtime is imported.

Why not a temporary file renamed over the old one: on ext4 a rename over an existing
file forces the new file's data out to disk first (``auto_da_alloc``), 2.5 ms each, and a
commit is wanted before every changing answer; an in-place write lands in the operating
system's cache in microseconds. A worker thread was slower still: waiting for the GIL on
a busy server cost about 6 ms a commit. No fsync: a commit survives a crash of the
process, not necessarily a power cut.

A write that fails (a full disk, a read-only folder) raises `CommitError`; the caller
refuses the request. The failure is logged once, and its recovery once, so the user sees
it (``agent-tui serve`` prints the server's log).
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import struct
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from agent_tui.local.durable_snapshots import Shape, Snapshotter, decode, encode

T = TypeVar("T")
FULL_NEVER = 1e9

logger = logging.getLogger("agent_tui.local.durable")

DISK_PROBLEM = "agent-tui: cannot save the server's data"
"""The start of the log line that tells a user writes are being refused."""
DISK_RECOVERED = "agent-tui: the server's data is saved again"
_PROBLEM_END = "changes are refused until it can"

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
    RUNTIME_FILES[1]: "records",  # threads, runs, assistants, crons: a piece per record
    RUNTIME_FILES[2]: "namespaces",  # store items: a piece per namespace
}
"""How each store is cut into pieces (`durable_snapshots`); the others are pickled whole."""

_MAGIC = b"agent-tui commit"
_HEADER = struct.Struct(">16sQQI")  # magic, generation, length, CRC-32 of the data


def disk_news(line: str) -> str | None:
    """From a server log line: the problem's words if it says the data cannot be saved,
    ``""`` if it says it is saved again, None otherwise."""
    if DISK_RECOVERED in line:
        return ""
    start = line.find(DISK_PROBLEM)
    if start < 0:
        return None
    end = line.find(_PROBLEM_END, start)
    return line[start : end + len(_PROBLEM_END)] if end >= 0 else line[start:]


class CommitError(OSError):
    """The stores could not be written: the change is not kept."""


Source = tuple[str, Any]
"""A file name and the dictionary (a ``PersistentDict``-like mapping) saved there."""


def commit_file(filename: str, generation: int) -> str:
    return f"{filename}.commit-{generation % 2}"


class Committer:
    """Writes ``sources()`` (read anew at each commit: the runtime may replace a
    dictionary) to their commit files.

    `commit` writes at once. `request` shares commits between callers on the event loop:
    every caller that asked before a commit started is answered by it. An urgent request
    (an answer waits for it) starts one on the loop's next turn, or, if the last one ended
    less than its own length ago, once that time has passed: under load commits take at
    most half the loop's time (pickling the stores is O(all threads and runs), 3.5 ms for
    160 runs of the demo). A background request (a run started or ended) waits up to
    `BACKGROUND_DELAY` for an urgent one to join.
    """

    SPACING = 1.0
    BACKGROUND_DELAY = 0.1
    FULL_EVERY = 5.0

    def __init__(
        self, sources: Callable[[], Sequence[Source]], generations: dict[str, int] | None = None
    ) -> None:
        self._sources = sources
        self._generations = dict(generations or {})
        self._snapshotters: dict[str, Snapshotter] = {}
        self._last_full = -FULL_NEVER
        self._closed = False
        self._pending: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self._urgent = False
        self._next_allowed = 0.0
        # The data folder (the working folder), named in the problem: asked now, since
        # the event loop may not block on `os.getcwd` later.
        self._folder = os.getcwd()
        self.problem: str | None = None
        """Why the last commit failed (None: it succeeded)."""

    def commit(self) -> None:
        """Return once every change made so far is written; `CommitError` if it cannot
        be. After `close`, returns at once (the runtime saves on its way out)."""
        if self._closed:
            return
        now = time.monotonic()
        full = now - self._last_full >= self.FULL_EVERY
        try:
            for filename, mapping in self._sources():
                self._write(filename, mapping, full=full)
            if full:
                self._last_full = now
        except OSError as exc:
            self._failed(exc)
            raise CommitError(exc.errno, self.problem) from exc
        if self.problem is not None:
            self.problem = None
            logger.warning(DISK_RECOVERED)

    def close(self) -> None:
        """Make later commits no-ops."""
        self._closed = True

    def request(self, *, urgent: bool = True) -> asyncio.Future[None]:
        """A future done when a commit that started after this call has ended (its
        exception a `CommitError` if the commit failed). On the event loop's thread."""
        loop = asyncio.get_running_loop()
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
        self._timer, self._urgent = None, False
        assert pending is not None
        began = loop.time()
        try:
            self.commit()
        except CommitError as exc:
            pending.set_exception(exc)
        else:
            pending.set_result(None)
        ended = loop.time()
        self._next_allowed = ended + (ended - began) * self.SPACING

    def _write(self, filename: str, mapping: Any, *, full: bool) -> None:
        snapshotter = self._snapshotters.get(filename)
        if snapshotter is None:
            snapshotter = Snapshotter(SHAPES.get(filename, "whole"))
            self._snapshotters[filename] = snapshotter
        frames = _taken(lambda: snapshotter.frames(mapping, full=full))
        if frames is None:
            return  # unchanged since the last commit
        data = encode(frames)
        generation = self._generations.get(filename, 0) + 1
        header = _HEADER.pack(_MAGIC, generation, len(data), zlib.crc32(data))
        _write_in_place(commit_file(filename, generation), header + data)
        self._generations[filename] = generation
        snapshotter.written(frames)

    def _failed(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        problem = f"{DISK_PROBLEM} in {self._folder}: {reason}; {_PROBLEM_END}"
        if problem != self.problem:
            logger.error(problem)
        self.problem = problem


def _read_outcome(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


def newest_commits(filenames: Iterable[str] = RUNTIME_FILES) -> dict[str, int]:
    """The generation of each store's newest whole commit, for the `Committer` to go on
    from (reads only our files: safe before the runtime is imported)."""
    generations = {}
    for filename in filenames:
        newest = _newest(filename)
        if newest is not None:
            generations[filename] = newest[0]
    return generations


def restore_committed(filenames: Iterable[str]) -> None:
    """Put each store's newest whole commit where the runtime loads it, unless the
    runtime's own file is newer (it writes it at a clean stop). The pickles name the
    runtime's classes: call it once they may be imported."""
    for filename in filenames:
        newest = _newest(filename)
        if newest is None:
            continue
        _, body, written_at = newest
        try:
            if os.path.getmtime(filename) > written_at:
                continue
        except OSError:
            pass  # no file of the runtime's own
        temporary = f"{filename}.restore"
        with open(temporary, "wb") as file:
            pickle.dump(decode(body), file, 2)  # as `PersistentDict.dump` writes it
        os.replace(temporary, filename)


def _newest(filename: str) -> tuple[int, bytes, float] | None:
    newest: tuple[int, bytes, float] | None = None
    for slot in (0, 1):
        found = _read_commit(commit_file(filename, slot))
        if found is not None and (newest is None or found[0] > newest[0]):
            newest = found
    return newest


def _read_commit(path: str) -> tuple[int, bytes, float] | None:
    try:
        with open(path, "rb") as file:
            header = file.read(_HEADER.size)
            if len(header) < _HEADER.size:
                return None
            magic, generation, length, checksum = _HEADER.unpack(header)
            data = file.read(length)
        written_at = os.path.getmtime(path)
    except OSError:
        return None
    if magic != _MAGIC or len(data) != length:
        return None
    if zlib.crc32(data) != checksum:
        return None  # cut short by a crash: the other file holds the commit before
    return generation, data, written_at


def _taken(take: Callable[[], T]) -> T:
    """``take()``, again if another thread changed a dictionary while it was read."""
    for _ in range(4):
        try:
            return take()
        except RuntimeError:  # "dictionary changed size during iteration"
            continue
    return take()


def _write_in_place(path: str, data: bytes) -> None:
    """Overwrite the start of ``path`` (made if missing) with ``data``; bytes left past
    its end from a longer commit are ignored (the header gives the length)."""
    try:
        # In place ("r+b"): no truncation to zero either, which ext4 flushes too.
        with open(path, "r+b") as file:
            file.write(data)
    except FileNotFoundError:
        with open(path, "wb") as file:
            file.write(data)
