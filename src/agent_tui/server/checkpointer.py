"""The server's checkpointer, named by langgraph-api's ``checkpointer`` setting
(``{"backend": "custom", "path": "agent_tui.server.checkpointer.checkpointer"}``).

langgraph's `SqliteSaver` (langgraph-checkpoint-sqlite) on ``.langgraph_api/checkpoints.db``
in WAL mode with ``synchronous=NORMAL``: every ``aput``/``aput_writes`` is a committed
transaction before it returns, so a checkpoint survives a crash of the process (not
necessarily a power cut: no fsync per commit).

Each async method runs the saver's synchronous one, whole, on a thread of its own (one per
connection, `OneThread`): one hop off the event loop and back per call, or for all the
calls made while the thread was busy. langgraph's `AsyncSqliteSaver`
makes a hop per statement, fetch and commit (two or three per write, behind an
``asyncio.Lock``), which cost a short run more than its graph. langgraph-api's
blocking-call guard never sees the statements (they are not on the event loop).

langgraph-api calls four methods beyond the required ones when they are overridden
(``_checkpointer/_adapter.py``, `CheckpointerCapabilities`): ``adelete_thread``,
``adelete_for_runs`` (``multitask_strategy="rollback"``), ``acopy_thread``
(``POST /threads/{id}/copy``, else a slow generic copy) and ``aprune`` (thread pruning); the
last three run synchronous forms of our own (`SqliteSaver` has none), a few SQL statements
each. A checkpoint's run is in its metadata: the adapter puts the config's ``run_id`` there
(``_enrich_metadata``).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from agent_tui.server.names import DATA_FOLDER
from agent_tui.server.one_thread import OneThread
from agent_tui.server.records import NO_ROOM, SAVER, full_disk

DATABASE = os.path.join(DATA_FOLDER, "checkpoints.db")

_RUN = "json_extract(CAST(metadata AS TEXT), '$.run_id')"

T = TypeVar("T")


def _off_loop_as(name: str) -> Any:
    """The async form of `SqliteSaver`'s method ``name``: the method, run off the loop."""

    async def method(self: DurableSqliteSaver, *args: Any, **kwargs: Any) -> Any:
        return await self._off_loop(getattr(self, name), *args, **kwargs)

    method.__name__ = "a" + name
    return method


class DurableSqliteSaver(SqliteSaver):
    def __init__(self, conn: sqlite3.Connection, thread: OneThread) -> None:
        super().__init__(conn, serde=JsonPlusSerializer(pickle_fallback=True))
        self._thread = thread

    async def _off_loop(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return await self._thread.run(lambda: call(*args, **kwargs))
        except sqlite3.OperationalError as exc:
            if full_disk(exc):  # changes are refused until there is room again
                SAVER.report(NO_ROOM)
            raise

    aget_tuple = _off_loop_as("get_tuple")
    aput = _off_loop_as("put")
    aput_writes = _off_loop_as("put_writes")
    aget_delta_channel_history = _off_loop_as("get_delta_channel_history")
    adelete_thread = _off_loop_as("delete_thread")
    adelete_for_runs = _off_loop_as("delete_for_runs")
    acopy_thread = _off_loop_as("copy_thread")
    aprune = _off_loop_as("prune")

    async def alist(
        self, config: RunnableConfig | None, **options: Any
    ) -> AsyncIterator[CheckpointTuple]:
        for item in await self._off_loop(lambda: list(self.list(config, **options))):
            yield item

    def delete_for_runs(self, run_ids: Iterable[str]) -> None:
        runs = [str(run_id) for run_id in run_ids]
        with self.cursor() as cur:
            _delete(cur, f"{_RUN} IN ({','.join('?' * len(runs))})", runs)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        with self.cursor() as cur:
            # The metadata's thread_id, where it has one, names the copy.
            cur.execute(
                "INSERT OR REPLACE INTO checkpoints SELECT ?, checkpoint_ns, checkpoint_id, "
                "parent_checkpoint_id, type, checkpoint, CAST(json_replace(CAST(metadata AS "
                "TEXT), '$.thread_id', ?) AS BLOB) FROM checkpoints WHERE thread_id = ?",
                (str(target_thread_id), str(target_thread_id), str(source_thread_id)),
            )
            cur.execute(
                "INSERT OR REPLACE INTO writes SELECT ?, checkpoint_ns, checkpoint_id, task_id, "
                "task_path, idx, channel, type, value FROM writes WHERE thread_id = ?",
                (str(target_thread_id), str(source_thread_id)),
            )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        where = "thread_id = ?1"  # strategy "delete": all of them
        if strategy == "keep_latest":
            # Checkpoint ids are time-ordered: the newest of a namespace is its max.
            where += (
                " AND checkpoint_id NOT IN (SELECT max(checkpoint_id) FROM checkpoints"
                " WHERE thread_id = ?1 GROUP BY checkpoint_ns)"
            )
        with self.cursor() as cur:
            for thread_id in thread_ids:
                _delete(cur, where, (str(thread_id),))


def _delete(cur: sqlite3.Cursor, where: str, parameters: Sequence[str]) -> None:
    """The checkpoints ``where`` selects, and their writes."""
    cur.execute(
        "DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN "
        f"(SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints WHERE {where})",
        parameters,
    )
    cur.execute(f"DELETE FROM checkpoints WHERE {where}", parameters)


def _connect() -> sqlite3.Connection:
    # Used only from the saver's own thread (check_same_thread: it is opened on another).
    conn = sqlite3.connect(DATABASE, check_same_thread=False)
    conn.execute("PRAGMA synchronous=NORMAL")  # WAL: set by the saver's setup, at its first use
    return conn


@asynccontextmanager
async def checkpointer() -> AsyncIterator[DurableSqliteSaver]:
    """Entered by langgraph-api once per thread that asks (a saver is tied to its event
    loop): each gets its own connection to the one database, used from one thread. The
    data folder is made before langgraph-api starts (`main`)."""
    async with AsyncExitStack() as stack:
        thread = OneThread("agent-tui-checkpoints")
        stack.callback(thread.shutdown)
        saver = DurableSqliteSaver(await thread.run(_connect), thread)
        stack.push_async_callback(thread.run, saver.conn.close)
        yield saver
