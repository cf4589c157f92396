"""PROTOTYPE. The server's checkpointer, named by langgraph-api's ``checkpointer`` setting
(``{"backend": "custom", "path": "agent_tui.server.checkpointer.checkpointer"}``).

langgraph's `AsyncSqliteSaver` (langgraph-checkpoint-sqlite) on ``.langgraph_api/checkpoints.db``
in WAL mode with ``synchronous=NORMAL``: every ``aput``/``aput_writes`` is a committed
transaction before it returns, so a checkpoint survives a crash of the process (not
necessarily a power cut: no fsync per commit). Its statements run on aiosqlite's thread,
not on the event loop, so langgraph-api's blocking-call guard never sees them.

langgraph-api calls four methods beyond the required ones when they are overridden
(``_checkpointer/_adapter.py``, `CheckpointerCapabilities`): `AsyncSqliteSaver` has only
``adelete_thread``; ``adelete_for_runs`` (``multitask_strategy="rollback"``), ``acopy_thread``
(``POST /threads/{id}/copy``, else a slow generic copy) and ``aprune`` (thread pruning) are
added here as a few SQL statements each. A checkpoint's run is in its metadata: the adapter
puts the config's ``run_id`` there (``_enrich_metadata``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager

import aiosqlite
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

DATA_FOLDER = ".langgraph_api"
DATABASE = os.path.join(DATA_FOLDER, "checkpoints.db")
PATH = "agent_tui.server.checkpointer.checkpointer"
"""As langgraph-api's ``checkpointer.path`` names it (a dotted path: ``module:name``
without a slash is split at the last dot)."""

_RUN = "json_extract(CAST(metadata AS TEXT), '$.run_id')"


class DurableSqliteSaver(AsyncSqliteSaver):
    async def adelete_for_runs(self, run_ids: Iterable[str]) -> None:
        runs = [str(run_id) for run_id in run_ids]
        if not runs:
            return
        await self.setup()
        marks = ",".join("?" * len(runs))
        async with self.lock, self.conn.cursor() as cur:
            await cur.execute(
                "DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN "
                f"(SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints "
                f"WHERE {_RUN} IN ({marks}))",
                runs,
            )
            await cur.execute(f"DELETE FROM checkpoints WHERE {_RUN} IN ({marks})", runs)
            await self.conn.commit()

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.setup()
        source, target = str(source_thread_id), str(target_thread_id)
        async with self.lock, self.conn.cursor() as cur:
            await cur.execute(
                "INSERT OR REPLACE INTO checkpoints SELECT ?, checkpoint_ns, checkpoint_id, "
                "parent_checkpoint_id, type, checkpoint, CASE WHEN json_type(CAST(metadata AS "
                "TEXT), '$.thread_id') IS NULL THEN metadata ELSE CAST(json_set(CAST(metadata "
                "AS TEXT), '$.thread_id', ?) AS BLOB) END FROM checkpoints WHERE thread_id = ?",
                (target, target, source),
            )
            await cur.execute(
                "INSERT OR REPLACE INTO writes SELECT ?, checkpoint_ns, checkpoint_id, task_id, "
                "task_path, idx, channel, type, value FROM writes WHERE thread_id = ?",
                (target, source),
            )
            await self.conn.commit()

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        threads = [str(thread_id) for thread_id in thread_ids]
        if strategy != "keep_latest":
            for thread_id in threads:
                await self.adelete_thread(thread_id)
            return
        await self.setup()
        async with self.lock, self.conn.cursor() as cur:
            for thread_id in threads:
                # Checkpoint ids are time-ordered: the newest of a namespace is its max.
                await cur.execute(
                    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id NOT IN "
                    "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? "
                    "GROUP BY checkpoint_ns)",
                    (thread_id, thread_id),
                )
                await cur.execute(
                    "DELETE FROM writes WHERE thread_id = ? AND (checkpoint_ns, checkpoint_id) "
                    "NOT IN (SELECT checkpoint_ns, checkpoint_id FROM checkpoints "
                    "WHERE thread_id = ?)",
                    (thread_id, thread_id),
                )
            await self.conn.commit()


@asynccontextmanager
async def checkpointer() -> AsyncIterator[DurableSqliteSaver]:
    """Entered by langgraph-api once per thread that asks (a saver is tied to its event
    loop): each gets its own connection to the one database."""
    os.makedirs(DATA_FOLDER, exist_ok=True)
    async with aiosqlite.connect(DATABASE) as conn:
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        saver = DurableSqliteSaver(conn, serde=JsonPlusSerializer(pickle_fallback=True))
        await saver.setup()
        yield saver
