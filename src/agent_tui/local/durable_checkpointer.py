"""The embedded server's checkpointer: SQLite in the data folder, each checkpoint committed
as it is saved.

The in-memory runtime keeps checkpoints in dictionaries that it pickles to
``.langgraph_api/.langgraph_checkpoint.*.pckl`` only at a clean stop (its 10 s flush loop
loses track of them: see docs/server-quirks.md), so a crash lost every checkpoint.
langgraph-api's ``checkpointer`` setting replaces the runtime's checkpointer; the server
process (`server_process`) sets it to `checkpointer` below unless the project's
``langgraph.json`` names its own. The writes (``aput``, ``aput_writes`` …) go into one
open SQLite transaction, committed (`DurableSqliteSaver.flush`) before any answer that
changed something: `durable_commits.Committer.commit` flushes first, and every changing
request is answered after one, so nothing answered is lost; and, for a run that nobody
waits on, within `DurableSqliteSaver.FLUSH_WITHIN` of its first write. A COMMIT per
write cost 10 to 15 µs each, seven a ``counter`` run. The same connection reads its own
writes; a crash loses only writes nobody was answered about (langgraph resumes a run
from its last committed checkpoint). WAL mode with ``synchronous=NORMAL``: a commit
survives a crash of the process (it is in the operating system's hands), the file stays
consistent after a power cut (the last commits may be lost then).

A commit appends to the write-ahead log; copying the log into the database (a WAL
checkpoint, with an fsync) is done by a thread of its own (`WalCheckpoints`) four times a
second, not by the commit that happens to fill 1,000 pages (SQLite's default): that
commit took 5 to 40 ms on a busy disk, inside a run, on the event loop (a put and its
writes: 0.085 ms on average that way, 0.060 ms this way).

Only the server process imports this module (it needs langgraph-api).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.sqlite import SqliteSaver

from agent_tui.local.durable_commits import FLUSHES

logger = logging.getLogger(__name__)

DATABASE_FILE = Path(".langgraph_api") / "checkpoints.sqlite"
"""Relative to the server's working folder, its data folder (beside the runtime's files)."""


class DurableSqliteSaver(SqliteSaver):
    """`SqliteSaver` with the async methods langgraph-api calls, run in place, and what it
    asks of a custom checkpointer beyond them: deleting a run's checkpoints
    (``multitask_strategy="rollback"``) and pruning.

    In place, not in a worker thread (as `AsyncSqliteSaver` does, through aiosqlite): a
    checkpoint is a short write to the operating system's cache, while each trip to a
    thread and back waited for the GIL on a busy server (several milliseconds each, about
    ten trips a run; see benchmarks/durable_runs.py).

    A write leaves its transaction open: `flush` commits it (the committer calls it before
    each answer), and a timer within `FLUSH_WITHIN` of the first write not yet committed.
    Without a running event loop (a caller of the sync methods) each write is committed
    at once."""

    FLUSH_WITHIN = 0.1
    """Seconds a write may wait for its commit when no answer asks for one first (as the
    committer's `durable_commits.Committer.BACKGROUND_DELAY`)."""

    _flush_armed = False

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        with self.lock:
            self.setup()
            cur = self.conn.cursor()
            try:
                yield cur
            finally:
                cur.close()
        if transaction:
            self._commit_soon()

    def flush(self) -> None:
        """Commit the writes made so far; `OSError` if they cannot be (a full disk)."""
        with self.lock:
            if not self.conn.in_transaction:
                return
            try:
                self.conn.commit()
            except sqlite3.Error as exc:
                raise OSError(errno.EIO, f"checkpoints: {exc}") from exc

    def _commit_soon(self) -> None:
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

    def setup(self) -> None:
        if not self.is_setup:
            # A crash loses no commit with NORMAL in WAL mode; FULL would also survive a
            # power cut, at an fsync per checkpoint. A second connection (another event
            # loop's) waits for the lock instead of failing at once.
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA busy_timeout=10000")
            self.conn.execute("PRAGMA wal_autocheckpoint=0")  # `WalCheckpoints` does it
        super().setup()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        return self.get_delta_channel_history(config=config, channels=channels)

    async def adelete_for_runs(self, run_ids: Iterable[str]) -> None:
        ids = [str(run_id) for run_id in run_ids]
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        doomed = (
            "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints "
            f"WHERE json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
        )
        with self.cursor() as cur:
            for table in ("writes", "checkpoints"):
                cur.execute(
                    f"DELETE FROM {table} WHERE (thread_id, checkpoint_ns, checkpoint_id) "
                    f"IN ({doomed})",
                    ids,
                )

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        if strategy != "keep_latest":
            for thread_id in thread_ids:
                self.delete_thread(str(thread_id))
            return
        # Checkpoint ids grow with time (uuid6): the latest of a namespace is its largest.
        older = (
            "SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id FROM checkpoints c "
            "WHERE c.thread_id = ? AND c.checkpoint_id < (SELECT MAX(l.checkpoint_id) "
            "FROM checkpoints l WHERE l.thread_id = c.thread_id "
            "AND l.checkpoint_ns = c.checkpoint_ns)"
        )
        with self.cursor() as cur:
            for thread_id in thread_ids:
                for table in ("writes", "checkpoints"):
                    cur.execute(
                        f"DELETE FROM {table} WHERE (thread_id, checkpoint_ns, checkpoint_id) "
                        f"IN ({older})",
                        (str(thread_id),),
                    )


PICKLED_CHECKPOINTS = Path(".langgraph_api") / ".langgraph_checkpoint.1.pckl"
"""The first of the runtime's own checkpoint files (from before this saver)."""


def copy_pickled_checkpoints(saver: DurableSqliteSaver) -> int:
    """Copy the checkpoints the runtime kept in its own files into ``saver`` (once, when
    the database is new), oldest first so each keeps its parent; how many were copied.
    The runtime's files are left as they were."""
    from langgraph_runtime_inmem.checkpoint import Checkpointer

    pickled = Checkpointer()  # the runtime's saver, loaded from its files
    copied = 0
    for thread_id in list(pickled.storage):
        found = list(pickled.list({"configurable": {"thread_id": thread_id}}))
        for item in reversed(found):  # `list` gives the newest first
            configurable = item.config["configurable"]
            parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            config: RunnableConfig = {
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": configurable.get("checkpoint_ns", ""),
                    **({"checkpoint_id": parent} if parent else {}),
                }
            }
            stored = saver.put(config, item.checkpoint, item.metadata, {})
            for task_id, channel, value in item.pending_writes or []:
                saver.put_writes(stored, [(channel, value)], task_id)
            copied += 1
    if copied:
        logger.info("agent-tui: copied %d checkpoints from the runtime's files", copied)
    return copied


class WalCheckpoints:
    """A thread that copies the write-ahead log into the database now and then, on a
    connection of its own (a ``PASSIVE`` checkpoint: it never waits for the writers)."""

    EVERY = 0.25

    def __init__(self, database: Path) -> None:
        self._database = database
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoints", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ends the thread after its current checkpoint (not waited for: the event loop
        may not block; the log keeps every commit either way)."""
        self._stop.set()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._database, check_same_thread=False)
        except sqlite3.Error:
            return
        try:
            conn.execute("PRAGMA busy_timeout=1000")
            while not self._stop.wait(self.EVERY):
                self.checkpoint(conn)
        finally:
            conn.close()

    @staticmethod
    def checkpoint(conn: sqlite3.Connection) -> None:
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:  # busy, or a full disk: the log keeps the commits
            logger.debug("agent-tui: WAL checkpoint not done: %s", exc)


@asynccontextmanager
async def checkpointer() -> AsyncIterator[DurableSqliteSaver]:
    """The saver langgraph-api enters once per event loop, on the data folder's database."""
    from langgraph_api.serde import Serializer  # the runtime's own serializer

    os.makedirs(DATABASE_FILE.parent, exist_ok=True)
    new = not DATABASE_FILE.exists()
    # Used from the loop that entered it; the saver's lock guards other threads' calls.
    conn = sqlite3.connect(DATABASE_FILE, check_same_thread=False)
    try:
        saver = DurableSqliteSaver(conn, serde=Serializer())
        saver.setup()
        if new and PICKLED_CHECKPOINTS.exists():
            copy_pickled_checkpoints(saver)
        saver.flush()
        checkpoints = WalCheckpoints(DATABASE_FILE)
        checkpoints.start()
        FLUSHES.append(saver.flush)
        try:
            yield saver
        finally:
            FLUSHES.remove(saver.flush)
            checkpoints.stop()
            with contextlib.suppress(OSError):
                saver.flush()
    finally:
        conn.close()
