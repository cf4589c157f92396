"""The server's store, named by langgraph-api's ``store`` setting
(``{"path": "agent_tui.server.store.store", "index": …}``).

langgraph's `AsyncSqliteStore` on ``.langgraph_api/store.db`` (WAL, ``synchronous=NORMAL``):
each put is committed before it returns. langgraph-api hands a custom store no settings,
so the project's ``store.index`` (semantic search: ``embed``, ``dims``, ``fields``) and
``ttl`` are read here from ``LANGGRAPH_STORE``, the setting's JSON as ``run_server`` exports
it; vectors are kept by sqlite-vec in the same database.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from langgraph.store.base import Op, Result
from langgraph.store.sqlite.aio import AsyncSqliteStore
from starlette.exceptions import HTTPException

from agent_tui.server.names import DATA_FOLDER
from agent_tui.server.records import NO_ROOM, SAVER, full_disk

DATABASE = os.path.join(DATA_FOLDER, "store.db")


class DurableSqliteStore(AsyncSqliteStore):
    """`AsyncSqliteStore` whose writes that find the disk full answer ``507``."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        try:
            return await super().abatch(ops)
        except sqlite3.OperationalError as exc:
            if not full_disk(exc):
                raise
            SAVER.report(NO_ROOM)  # changes are refused until there is room again
            raise HTTPException(507, NO_ROOM) from exc


@asynccontextmanager
async def store() -> AsyncIterator[AsyncSqliteStore]:
    """The data folder is there: `main` makes it before langgraph-api starts."""
    settings: dict[str, Any] = json.loads(os.environ.get("LANGGRAPH_STORE") or "{}")
    index, ttl = settings.get("index"), settings.get("ttl")
    if index and isinstance(index.get("embed"), str):
        # ``./embed.py:fn`` or ``openai:text-embedding-3-small``, as langgraph-api's
        # own store reads it (its public `resolve_embeddings`).
        from langgraph_api.graph import resolve_embeddings

        index = {**index, "embed": resolve_embeddings(index)}
    async with DurableSqliteStore.from_conn_string(DATABASE, index=index, ttl=ttl) as kept:
        await kept.conn.executescript("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        await kept.setup()
        yield kept
