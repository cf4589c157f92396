"""`agent-tui threads list [--status S] [--metadata k=v ...] [--limit N] [--json]`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import EXIT_OK, print_json, print_table, run
from agent_tui.text.sanitize import clean_text
from agent_tui.text.time_text import utc_seconds
from agent_tui.text.user_json import json_or_text
from agent_tui.threads.query import (
    QueryError,
    ThreadQuery,
    graph_of,
    last_message,
    last_message_preview,
)

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Thread


def parse_metadata_flags(pairs: list[str]) -> dict[str, Any]:
    """`["graph_id=chat", "user=Ann Lee", "n=3"]` → `{"graph_id": "chat", "user": "Ann Lee", "n": 3}`."""
    metadata: dict[str, Any] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise QueryError("--metadata", f"expected KEY=VALUE, got {pair!r}")
        if key in metadata:
            raise QueryError("--metadata", f"{key!r} is given twice")
        metadata[key] = json_or_text(value)
    return metadata


def thread_json(thread: Thread) -> dict[str, Any]:
    return {
        "thread_id": thread.thread_id,
        "status": thread.status,
        "graph_id": thread.metadata.get("graph_id"),
        "metadata": thread.metadata,
        "created_at": thread.created_at.isoformat() if thread.created_at else None,
        "updated_at": thread.updated_at.isoformat() if thread.updated_at else None,
        "last_message": last_message(thread),
    }


def list_threads(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        try:
            checked = ThreadQuery.from_input(status=args.status, page_size=args.limit)
        except QueryError as error:
            field = "--limit" if error.field == "page size" else f"--{error.field}"
            raise QueryError(field, error.message) from None
        query = ThreadQuery(
            status=checked.status,
            metadata=parse_metadata_flags(args.metadata),
            page_size=checked.page_size,
        )
        threads = await client.threads.search(**query.kwargs())
        if args.json:
            print_json([thread_json(thread) for thread in threads])
            return EXIT_OK
        rows = [
            [
                thread.thread_id,
                clean_text(thread.status),
                graph_of(thread),
                utc_seconds(thread.updated_at),
                last_message_preview(thread, 50),
            ]
            for thread in threads
        ]
        print_table(["THREAD ID", "STATUS", "GRAPH", "UPDATED (UTC)", "LAST MESSAGE"], rows)
        return EXIT_OK

    return run(args, work)
