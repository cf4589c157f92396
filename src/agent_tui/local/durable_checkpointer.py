"""The embedded server's checkpointer: SQLite in the data folder, each checkpoint committed
as it is saved.

The in-memory runtime keeps checkpoints in dictionaries that it pickles to
``.langgraph_api/.langgraph_checkpoint.*.pckl`` only at a clean stop (its 10 s flush loop
loses track of them: see docs/server-quirks.md), so a crash lost every checkpoint.
langgraph-api's ``checkpointer`` setting replaces the runtime's checkpointer; the server
process (`server_process`) sets it to `checkpointer` below unless the project's
``langgraph.json`` names its own. Each ``aput`` and ``aput_writes`` is one SQLite
transaction, committed before the run goes on, in WAL mode with ``synchronous=NORMAL``:
a commit survives a crash of the process (it is in the operating system's hands), the
file stays consistent after a power cut (the last commits may be lost then).

Only the server process imports this module (it needs langgraph-api).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

logger = logging.getLogger(__name__)

DATABASE_FILE = Path(".langgraph_api") / "checkpoints.sqlite"
"""Relative to the server's working folder, its data folder (beside the runtime's files)."""


class DurableSqliteSaver(AsyncSqliteSaver):
    """`AsyncSqliteSaver` with what langgraph-api asks of a custom checkpointer beyond it:
    deleting a run's checkpoints (``multitask_strategy="rollback"``) and pruning."""

    async def setup(self) -> None:
        if not self.is_setup:
            # A crash loses no commit with NORMAL in WAL mode; FULL would also survive a
            # power cut, at an fsync per checkpoint. A second connection (another event
            # loop's) waits for the lock instead of failing at once.
            await self.conn.execute("PRAGMA synchronous=NORMAL")
            await self.conn.execute("PRAGMA busy_timeout=10000")
        await super().setup()

    async def adelete_for_runs(self, run_ids: Iterable[str]) -> None:
        ids = [str(run_id) for run_id in run_ids]
        if not ids:
            return
        await self.setup()
        marks = ",".join("?" * len(ids))
        doomed = (
            "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints "
            f"WHERE json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
        )
        async with self.lock, self.conn.cursor() as cur:
            await cur.execute(
                "DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) "
                f"IN ({doomed})",
                ids,
            )
            await cur.execute(
                "DELETE FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) "
                f"IN ({doomed})",
                ids,
            )
            await self.conn.commit()

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        if strategy != "keep_latest":
            for thread_id in thread_ids:
                await self.adelete_thread(str(thread_id))
            return
        await self.setup()
        # Checkpoint ids grow with time (uuid6): the latest of a namespace is its largest.
        older = (
            "SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id FROM checkpoints c "
            "WHERE c.thread_id = ? AND c.checkpoint_id < (SELECT MAX(l.checkpoint_id) "
            "FROM checkpoints l WHERE l.thread_id = c.thread_id "
            "AND l.checkpoint_ns = c.checkpoint_ns)"
        )
        async with self.lock, self.conn.cursor() as cur:
            for thread_id in thread_ids:
                for table in ("writes", "checkpoints"):
                    await cur.execute(
                        f"DELETE FROM {table} WHERE (thread_id, checkpoint_ns, checkpoint_id) "
                        f"IN ({older})",
                        (str(thread_id),),
                    )
            await self.conn.commit()


@asynccontextmanager
async def checkpointer() -> AsyncIterator[DurableSqliteSaver]:
    """The saver langgraph-api enters once per event loop, on the data folder's database."""
    from langgraph_api.serde import Serializer  # the runtime's own serializer

    os.makedirs(DATABASE_FILE.parent, exist_ok=True)
    async with aiosqlite.connect(DATABASE_FILE) as conn:
        saver = DurableSqliteSaver(conn, serde=Serializer())
        await saver.setup()
        yield saver
