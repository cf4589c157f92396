"""Writing the in-memory runtime's stores to disk before a change is acknowledged.

The runtime keeps threads, runs, assistants, crons, store items and its retry counters
in dictionaries (``PersistentDict``) that it pickles to ``.langgraph_api/`` every 10 s.
`Committer` writes them when asked (`durable_runtime` asks before answering a request
that changed something, and after each run): each dictionary is pickled on the event
loop (a consistent picture: the runtime changes them on that loop), and the files whose
bytes changed are written to a temporary file and renamed over the old one in a worker
thread. Requests that arrive while a write is under way share the next one (group
commit), so a burst of requests costs a few writes, not one each.

A write that fails (a full disk, a read-only folder) raises `CommitError`; the caller
refuses the request. The failure is logged once, and its recovery once, so the user sees
it (``agent-tui serve`` prints the server's log).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger("agent_tui.local.durable")

DISK_PROBLEM = "agent-tui: cannot save the server's data"
"""The start of the log line that tells a user writes are being refused."""
DISK_RECOVERED = "agent-tui: the server's data is saved again"


class CommitError(OSError):
    """The stores could not be written: the change is not kept."""


@dataclass
class _Written:
    digest: bytes


Source = tuple[str, Any]
"""A file name and the dictionary (a ``PersistentDict``-like mapping) saved there."""


class Committer:
    """Writes ``sources()`` (read anew at each commit: the runtime may replace a
    dictionary) to their files, one commit at a time."""

    def __init__(self, sources: Callable[[], Sequence[Source]], *, fsync: bool = False) -> None:
        self._sources = sources
        self._fsync = fsync
        self._lock = asyncio.Lock()
        self._started = 0
        self._last_ok = 0
        self._written: dict[str, _Written] = {}
        self._closed = False
        # The data folder (the working folder), named in the problem: asked now, since
        # the event loop may not block on `os.getcwd` later.
        self._folder = os.getcwd()
        self.problem: str | None = None
        """Why the last commit failed (None: it succeeded)."""

    async def commit(self) -> None:
        """Return once every change made before the call is on disk; `CommitError` if it
        cannot be. After `close`, returns at once (the runtime saves on its way out)."""
        arrived = self._started
        async with self._lock:
            if self._closed or self._last_ok > arrived:
                return  # a commit that began after we arrived has saved our changes
            self._started += 1
            number = self._started
            try:
                snapshots = self._snapshot()
                await asyncio.to_thread(self._write, snapshots)
            except OSError as exc:
                self._failed(exc)
                raise CommitError(exc.errno, self.problem) from exc
            self._last_ok = number
            if self.problem is not None:
                self.problem = None
                logger.warning(DISK_RECOVERED)

    async def close(self) -> None:
        """Wait for the commit under way, and make later ones no-ops."""
        async with self._lock:
            self._closed = True

    def _snapshot(self) -> list[tuple[str, bytes]]:
        snapshots = []
        for filename, mapping in self._sources():
            snapshots.append((filename, _pickled(mapping)))
        return snapshots

    def _write(self, snapshots: list[tuple[str, bytes]]) -> None:
        for filename, data in snapshots:
            digest = hashlib.blake2b(data, digest_size=16).digest()
            written = self._written.get(filename)
            if written is not None and written.digest == digest:
                continue
            _replace(filename, data, fsync=self._fsync)
            self._written[filename] = _Written(digest)

    def _failed(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        problem = f"{DISK_PROBLEM} in {self._folder}: {reason}; changes are refused until it can"
        if problem != self.problem:
            logger.error(problem)
        self.problem = problem


def _pickled(mapping: Any) -> bytes:
    # As `PersistentDict.dump` writes it, so the runtime loads it as its own.
    for _ in range(5):
        try:
            return pickle.dumps(dict(mapping), 2)
        except RuntimeError:  # changed by another thread while pickled: take it again
            continue
    return pickle.dumps(dict(mapping), 2)


def _replace(filename: str, data: bytes, *, fsync: bool) -> None:
    """Write ``filename`` whole or not at all (a temporary file renamed over it)."""
    folder = os.path.dirname(filename) or "."
    os.makedirs(folder, exist_ok=True)
    temporary = f"{filename}.{os.getpid()}.commit"
    try:
        with open(temporary, "wb") as file:
            file.write(data)
            file.flush()
            if fsync:
                os.fsync(file.fileno())
        os.replace(temporary, filename)
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
