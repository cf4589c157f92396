"""Where the embedded server's checkpoint changes are made durable before an answer: an
append-only log, written on the event loop with one ``pwrite``, and applied to the SQLite
tables (`checkpoint_tables`) by a thread of its own.

Writing the changes into SQLite on the event loop cost a ``counter`` run's commit 0.3 to
0.8 ms (46 µs on a quiet process): each row's step and the COMMIT release the GIL, and
on a busy server another thread (the log writer, the WAL checkpoint) takes it each time.
Appending a block to a file costs one system call. The tables stay the compact, whole
copy: read at start, and the log only ever holds what they may not have yet.

A block is a header (magic, sequence number, length, CRC-32) and a pickle of the journal
(`durable_checkpointer`'s list of statements and rows). Two files, ``checkpoints.log-0``
and ``-1``, one written at a time; once the file in use is past `CheckpointLog.SWITCH_AT`
and every block of the other one is in the tables, writing goes on from the start of the
other one (no truncation: a truncation or a rename forces a write-back on ext4, and bytes
left from before end the reading, since their numbers do not follow on). The tables record
the last sequence number they hold (``checkpoint_log_applied``), in the transaction that
applied it, so a block is applied once as far as anyone can tell (applying one again
changes nothing: every statement is a put or a delete).

At start (`replay`), the blocks past that number, in order, are applied to the tables
before they are read. No fsync: a block survives a crash of the process, not necessarily
a power cut (as the runtime's stores, `durable_commits`).
"""

from __future__ import annotations

import logging
import os
import pickle
import sqlite3
import struct
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

from agent_tui.local import checkpoint_tables as tables
from agent_tui.local import unguarded
from agent_tui.local.checkpoint_tables import Journal

logger = logging.getLogger(__name__)

_MAGIC = b"agent-tui ckpt 1"
_HEADER = struct.Struct(">16sQQI")  # magic, sequence number, length, CRC-32 of the data
_PROTOCOL = 5


def log_file(folder: Path, slot: int) -> Path:
    return folder / f"checkpoints.log-{slot}"


class CheckpointLog:
    """The log's writing end (on the event loop) and its `Applier`."""

    SWITCH_AT = 4 << 20
    """Bytes of the file in use past which writing moves to the other (once it is applied)."""

    def __init__(self, folder: Path, database: Path, last: int) -> None:
        self._folder = folder
        self.sequence = last  # the last block written (or found applied at start)
        self._slot, self._end = 0, 0
        self._last_in = {0: last, 1: last}  # the last block written to each file
        self._descriptors: dict[int, int] = {}
        self.applier = Applier(database)

    def append(self, journal: Journal) -> None:
        """Write ``journal`` as the next block, then hand it to the applier; `OSError` if
        it cannot be written (nothing changes here then: the next try writes the same
        place again)."""
        self._maybe_switch()
        sequence = self.sequence + 1
        data = pickle.dumps(journal, _PROTOCOL)
        block = _HEADER.pack(_MAGIC, sequence, len(data), zlib.crc32(data)) + data
        _write_at(self._descriptor(self._slot), block, self._end)
        self.sequence, self._end = sequence, self._end + len(block)
        self._last_in[self._slot] = sequence
        self.applier.give(sequence, journal)

    def close(self) -> None:
        """Stop the applier (it applies what it was given first) and close the files."""
        self.applier.stop()
        for descriptor in self._descriptors.values():
            os.close(descriptor)
        self._descriptors.clear()

    def _maybe_switch(self) -> None:
        other = 1 - self._slot
        if self._end >= self.SWITCH_AT and self.applier.applied >= self._last_in[other]:
            self._slot, self._end = other, 0

    def _descriptor(self, slot: int) -> int:
        descriptor = self._descriptors.get(slot)
        if descriptor is None:
            path = log_file(self._folder, slot)
            descriptor = unguarded.open_descriptor(path, os.O_RDWR | os.O_CREAT, 0o644)
            self._descriptors[slot] = descriptor
        return descriptor


def _write_at(descriptor: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        written = unguarded.pwrite(descriptor, view, at)
        view, at = view[written:], at + written


class Applier:
    """A thread that applies the blocks it is given to the tables, on a connection of its
    own, in order, a few times a second. A block it cannot apply (a full disk) stays
    given, and is tried again; the log keeps it meanwhile."""

    EVERY = 0.25

    def __init__(self, database: Path) -> None:
        self._database = database
        self._given: list[tuple[int, Journal]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self.applied = 0  # the last block in the tables (set by the thread)
        self._thread = threading.Thread(target=self._run, name="checkpoint-applier", daemon=True)

    def start(self, applied: int) -> None:
        self.applied = applied
        self._thread.start()

    def give(self, sequence: int, journal: Journal) -> None:
        with self._lock:
            self._given.append((sequence, journal))

    def stop(self) -> None:
        """End the thread after one more pass (not waited for: the log keeps every block)."""
        self._stopping = True
        self._wake.set()

    def _run(self) -> None:
        conn = sqlite3.connect(self._database, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=10000")
            while True:
                stopping = self._stopping
                self._apply(conn)
                if stopping:
                    return
                self._wake.wait(self.EVERY)
        finally:
            conn.close()

    def _apply(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            given = self._given[:]
        if not given:
            return
        try:
            apply(conn, [change for _, journal in given for change in journal], given[-1][0])
        except sqlite3.Error as exc:  # the log keeps them: tried again next time
            logger.warning("agent-tui: checkpoints not copied into the database yet: %s", exc)
            return
        with self._lock:
            del self._given[: len(given)]
        self.applied = given[-1][0]


def apply(conn: sqlite3.Connection, journal: Journal, sequence: int) -> None:
    """Apply ``journal`` to the tables and record ``sequence`` as applied, in one
    transaction (rolled back if it fails)."""
    try:
        tables.execute(conn, journal)
        conn.execute("UPDATE checkpoint_log_applied SET sequence = ?", (sequence,))
        conn.commit()
    except sqlite3.Error:
        conn.rollback()
        raise


def replay(folder: Path, conn: sqlite3.Connection) -> int:
    """Apply the blocks both files hold past the tables' last to the tables, in order, up
    to the first missing one; the last sequence number the tables now hold."""
    applied = tables.applied(conn)
    found: dict[int, Journal] = {}
    for slot in (0, 1):
        for sequence, data in _blocks(log_file(folder, slot)):
            if sequence > applied:
                found[sequence] = pickle.loads(data)
    journal: Journal = []
    last = applied
    while last + 1 in found:
        last += 1
        journal.extend(found[last])
    if last > applied:
        apply(conn, journal, last)
        logger.info("agent-tui: %d checkpoint changes replayed from the log", last - applied)
    return last


def _blocks(path: Path) -> Iterator[tuple[int, bytes]]:
    """The file's whole blocks from its start, while their numbers follow on."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return
    at, previous = 0, None
    while len(content) - at >= _HEADER.size:
        magic, sequence, length, checksum = _HEADER.unpack_from(content, at)
        data = content[at + _HEADER.size : at + _HEADER.size + length]
        whole = magic == _MAGIC and len(data) == length and zlib.crc32(data) == checksum
        if not whole or (previous is not None and sequence != previous + 1):
            return  # cut short by a crash, or left from an earlier use of the file
        yield sequence, data
        at, previous = at + _HEADER.size + length, sequence
