"""PROTOTYPE. The server's store, named by langgraph-api's ``store`` setting
(``{"path": "agent_tui.server.store.store", "index": …}``).

langgraph's `AsyncSqliteStore` on ``.langgraph_api/store.db`` (WAL, ``synchronous=NORMAL``):
each put is committed before it returns. langgraph-api hands a custom store no settings,
so the project's ``store.index`` (semantic search) is read here from ``LANGGRAPH_STORE``,
the setting's JSON as ``run_server`` exports it.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
from langgraph.store.sqlite.aio import AsyncSqliteStore

from agent_tui.server.checkpointer import DATA_FOLDER

DATABASE = os.path.join(DATA_FOLDER, "store.db")
PATH = "agent_tui.server.store.store"


@asynccontextmanager
async def store() -> AsyncIterator[AsyncSqliteStore]:
    os.makedirs(DATA_FOLDER, exist_ok=True)
    settings: dict[str, Any] = json.loads(os.environ.get("LANGGRAPH_STORE") or "{}")
    async with aiosqlite.connect(DATABASE, isolation_level=None) as conn:
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        kept = AsyncSqliteStore(conn, index=settings.get("index"), ttl=settings.get("ttl"))
        await kept.setup()
        yield kept
