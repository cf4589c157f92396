"""The embedded server's checkpointer: the runtime's own in-memory checkpointer, whose every
change is made durable in the data folder before any answer that needs it.

The in-memory runtime keeps checkpoints in dictionaries that it pickles to
``.langgraph_api/.langgraph_checkpoint.*.pckl`` only at a clean stop (its 10 s flush loop
loses track of them: see docs/server-quirks.md), so a crash lost every checkpoint.
langgraph-api's ``checkpointer`` setting replaces the runtime's checkpointer; the server
process (`server_process`) sets it to `checkpointer` below unless the project's
``langgraph.json`` names its own.

`DurableMemorySaver` is langgraph's `InMemorySaver` (what the runtime runs): every read is
served from memory, exactly as without durable writes. Each change (a checkpoint, a task's
writes, a thread deleted, a run's checkpoints rolled back, a thread pruned) also notes its
rows, already serialized by the saver, in a journal. `DurableMemorySaver.flush` appends the
journal to a log (`checkpoint_log`: one ``pwrite``), whose thread then applies it to the
SQLite tables (`checkpoint_tables`). The committer flushes before each answer that changed
something (`durable_commits.Committer.commit`), so nothing answered is lost; a change
nobody waits on is flushed within `DurableMemorySaver.FLUSH_WITHIN`. A crash loses only
changes nobody was answered about (langgraph resumes a run from its last durable
checkpoint). At start, the log's blocks the tables lack are applied, and the tables are
read into memory once (as the runtime loads its pickles).

Why this shape (benchmarks/durable_runs.py, a ``counter`` run of about 6 ms of the server's
time when eight share it): langgraph's `SqliteSaver` on the event loop, committed once per
answer, cost about 0.3 ms a run more than the in-memory saver (a statement a write through
langgraph-api's blocking-call guard, a query and a JSON decode a read); writing the journal
into SQLite at the commit still cost 0.3 to 0.8 ms (every row's step releases the GIL, and
another thread takes it); appending it to a file costs one system call.

Only the server process imports this module (it needs langgraph-api).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from agent_tui.local import checkpoint_log
from agent_tui.local import checkpoint_tables as tables
from agent_tui.local.checkpoint_log import CheckpointLog
from agent_tui.local.checkpoint_tables import Journal
from agent_tui.local.durable_commits import FLUSHES

logger = logging.getLogger(__name__)

DATA_FOLDER = Path(".langgraph_api")
"""Relative to the server's working folder, its data folder (beside the runtime's files)."""
DATABASE_NAME = "checkpoints.sqlite"

Key = tuple[str, str, str]
"""A checkpoint's thread id, namespace and id."""


class DurableMemorySaver(tables.Saver):
    """`InMemorySaver` whose changes are journaled and made durable by `flush` (`write_to`:
    the log), and what langgraph-api asks of a custom checkpointer beyond it: deleting a
    run's checkpoints (``multitask_strategy="rollback"``) and pruning.

    A change arms a timer that flushes within `FLUSH_WITHIN` unless an answer's commit
    does it first. Without a running event loop (a caller of the sync methods) each change
    is flushed at once."""

    FLUSH_WITHIN = 0.1
    """Seconds a write may wait for its commit when no answer asks for one first (as the
    committer's `durable_commits.Committer.BACKGROUND_DELAY`)."""

    _flush_armed = False

    def __init__(self, *, serde: SerializerProtocol | None = None) -> None:
        super().__init__(serde=serde)
        self.lock = threading.Lock()
        self._journal: Journal = []
        self._by_run: dict[str, set[Key]] = {}
        self._sink: Callable[[Journal], None] | None = None

    def write_to(self, sink: Callable[[Journal], None]) -> None:
        """Where `flush` writes the journal from now on (the log while the server runs;
        the tables themselves at start); ``sink`` raises `OSError` or `sqlite3.Error` if
        it cannot."""
        self._sink = sink

    # Reads are `InMemorySaver`'s. langgraph-api may hand over a UUID where a checkpoint
    # id belongs (the runtime's saver turns it into a string first, as here).
    def get_tuple(self, config: RunnableConfig) -> Any:
        configurable = config["configurable"]
        checkpoint_id = configurable.get("checkpoint_id")
        if checkpoint_id is not None and not isinstance(checkpoint_id, str):
            config = {
                **config,
                "configurable": {**configurable, "checkpoint_id": str(checkpoint_id)},
            }
        return super().get_tuple(config)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        if not isinstance(checkpoint["id"], str):
            checkpoint = {**checkpoint, "id": str(checkpoint["id"])}
        stored = super().put(config, checkpoint, metadata, new_versions)
        thread_id = config["configurable"]["thread_id"]
        ns = config["configurable"]["checkpoint_ns"]
        key = (thread_id, ns, checkpoint["id"])
        saved, saved_metadata, parent = self.storage[thread_id][ns][key[2]]
        run_id = _run_of(config, metadata)
        if run_id is not None:
            self.note_run(run_id, key)
        blobs = self.blobs
        self._record(
            (tables.PUT_CHECKPOINT, [(*key, *saved, *saved_metadata, parent, run_id)]),
            (
                tables.PUT_BLOB,
                [
                    (thread_id, ns, channel, version, *blobs[(thread_id, ns, channel, version)])
                    for channel, version in new_versions.items()
                ],
            ),
        )
        return stored

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        super().put_writes(config, writes, task_id, task_path)
        configurable = config["configurable"]
        outer = (
            configurable["thread_id"],
            configurable.get("checkpoint_ns", ""),
            configurable["checkpoint_id"],
        )
        stored = self.writes.get(outer) or {}
        rows = []
        for index, (channel, _) in enumerate(writes):
            inner = (task_id, WRITES_IDX_MAP.get(channel, index))
            if (kept := stored.get(inner)) is not None:  # as the saver keeps it
                rows.append((*outer, task_id, inner[1], channel, *kept[2], kept[3]))
        self._record((tables.PUT_WRITE, rows))

    def delete_thread(self, thread_id: str) -> None:
        super().delete_thread(thread_id)
        self._record(*((sql, [(thread_id,)]) for sql in tables.DELETE_THREAD))

    def note_run(self, run_id: str, key: Key) -> None:
        """Remember that run ``run_id`` made checkpoint ``key`` (for `adelete_for_runs`)."""
        self._by_run.setdefault(run_id, set()).add(key)

    def flush(self) -> None:
        """Make the journal durable (`write_to`); `OSError` if it cannot be (a full disk):
        the journal is kept for the next flush."""
        with self.lock:
            journal, self._journal = self._journal, []
            if not journal or self._sink is None:
                self._journal[:0] = journal
                return
            try:
                self._sink(journal)
            except (OSError, sqlite3.Error) as exc:
                self._journal[:0] = journal  # every statement is safe to run again
                reason = exc.strerror if isinstance(exc, OSError) else str(exc)
                raise OSError(
                    getattr(exc, "errno", None) or errno.EIO, f"checkpoints: {reason}"
                ) from exc

    def _record(self, *changes: tuple[str, list[tuple[Any, ...]]]) -> None:
        with self.lock:
            self._journal.extend(changes)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop here: at once, as `SqliteSaver` does
            self.flush()
            return
        if not self._flush_armed:
            self._flush_armed = True
            loop.call_later(self.FLUSH_WITHIN, self._flush_later)

    def _flush_later(self) -> None:
        self._flush_armed = False
        try:
            self.flush()
        except OSError as exc:  # the next answer's commit fails and tells it
            logger.debug("agent-tui: checkpoints not committed yet: %s", exc)

    async def adelete_for_runs(self, run_ids: Iterable[str]) -> None:
        doomed = [key for run_id in run_ids for key in self._by_run.pop(str(run_id), ())]
        self._delete_checkpoints(doomed)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        if strategy != "keep_latest":
            for thread_id in thread_ids:
                self.delete_thread(str(thread_id))
            return
        for thread_id in map(str, thread_ids):
            namespaces = self.storage.get(thread_id, {})
            doomed: list[Key] = []
            kept: set[tuple[str, str, Any]] = set()
            for ns, checkpoints in namespaces.items():
                if not checkpoints:
                    continue
                latest = max(checkpoints)
                doomed.extend((thread_id, ns, older) for older in checkpoints if older != latest)
                versions = self.serde.loads_typed(checkpoints[latest][0])["channel_versions"]
                kept.update((ns, channel, version) for channel, version in versions.items())
            self._delete_checkpoints(doomed)
            unused = [key for key in self.blobs if key[0] == thread_id and key[1:] not in kept]
            for key in unused:
                del self.blobs[key]
            self._record((tables.DELETE_BLOB, unused))

    def _delete_checkpoints(self, keys: Sequence[Key]) -> None:
        for thread_id, ns, checkpoint_id in keys:
            self.storage.get(thread_id, {}).get(ns, {}).pop(checkpoint_id, None)
            self.writes.pop((thread_id, ns, checkpoint_id), None)
        self._record(*((sql, list(keys)) for sql in tables.DELETE_CHECKPOINT))


def _run_of(config: RunnableConfig, metadata: CheckpointMetadata) -> str | None:
    """The run that made a checkpoint (in its metadata, as langgraph-api enriches it)."""
    run_id = metadata.get("run_id") or (config.get("metadata") or {}).get("run_id")
    run_id = run_id or config["configurable"].get("run_id")
    return None if run_id is None else str(run_id)


_SHARED: list[DurableMemorySaver] = []
"""The one saver of this process, while entered (`checkpointer`)."""


@asynccontextmanager
async def checkpointer() -> AsyncIterator[DurableMemorySaver]:
    """The saver langgraph-api enters once per thread: one for the whole process (its
    memory is the checkpoints), on the data folder's database and log."""
    if _SHARED:
        yield _SHARED[0]
        return
    from langgraph_api.serde import Serializer  # the runtime's own serializer

    saver, log = open_saver(DATA_FOLDER, Serializer())
    _SHARED.append(saver)
    FLUSHES.append(saver.flush)
    try:
        yield saver
    finally:
        FLUSHES.remove(saver.flush)
        _SHARED.clear()
        with contextlib.suppress(OSError):
            saver.flush()
        log.close()


def open_saver(
    folder: Path, serde: SerializerProtocol | None = None
) -> tuple[DurableMemorySaver, CheckpointLog]:
    """A saver holding every checkpoint kept in ``folder`` (the tables, with what the log
    has beyond them applied first; earlier checkpoints copied in when the tables are new),
    writing to the log from now on, and the log (`CheckpointLog.close` it)."""
    os.makedirs(folder, exist_ok=True)
    database = folder / DATABASE_NAME
    conn = sqlite3.connect(database)
    try:
        if tables.create(conn):
            copying = DurableMemorySaver(serde=serde)
            copying.write_to(functools.partial(tables.write, conn))
            tables.copy_earlier(conn, copying, folder)
        last = checkpoint_log.replay(folder, conn)
        saver = DurableMemorySaver(serde=serde)
        tables.load(conn, saver)
    finally:
        conn.close()
    log = CheckpointLog(folder, database, last)
    log.applier.start(last)
    saver.write_to(log.append)
    return saver, log
