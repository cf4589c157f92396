"""`agent-tui history THREAD_ID [--limit N]` and `agent-tui diff THREAD_ID A B`."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import (
    EXIT_OK,
    NotThere,
    UsageError,
    print_json,
    print_table,
    run,
    say,
)
from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import ThreadState
    from agent_tui.threads.history import HistoryRow

FULL_ID_LENGTH = 36


def _cell(values: Any) -> str:
    if not values:
        return ""
    if isinstance(values, (list, tuple)) and all(isinstance(v, str) for v in values):
        return clean_text(", ".join(values))
    return clean_text(json.dumps(values, ensure_ascii=False, default=str))[:40]


def history_table_row(row: HistoryRow) -> list[str]:
    step = "" if row.step is None else str(row.step)
    return [
        step,
        clean_text(row.source or ""),
        clean_text(row.wrote),
        _cell(list(row.next)),
        _cell(list(row.interrupts)),
        row.time,
        row.checkpoint_id,
    ]


def show_history(args: argparse.Namespace) -> int:
    from agent_tui.threads.history import ThreadHistory

    async def work(client: AgentServerClient) -> int:
        if args.limit < 0:
            raise UsageError("--limit: 0 (all) or more")
        # One extra row, so the last one shown has its parent (what it wrote is known).
        size = min(args.limit + 1, 500) if args.limit else 500
        history = ThreadHistory(client, args.thread_id, page_size=size)
        while not history.exhausted and (not args.limit or len(history) <= args.limit):
            await history.load_more()
        rows = history.rows[: args.limit] if args.limit else history.rows
        if args.json:
            print_json([row.as_json() for row in rows])
            return EXIT_OK
        print_table(
            ["STEP", "SOURCE", "WROTE", "NEXT", "INTERRUPTS", "TIME (UTC)", "CHECKPOINT"],
            [history_table_row(row) for row in rows],
        )
        return EXIT_OK

    return run(args, work)


async def resolve_checkpoint(client: AgentServerClient, thread_id: str, given: str) -> str:
    """A full checkpoint id from a full one, or from a unique start or end of one.

    `NotThere` when no checkpoint of the thread matches, or several do: the thread's
    history said no, not the command line (exit 1, as for an unknown full id)."""
    from agent_tui.threads.history import ThreadHistory

    given = given.strip().lower()
    if len(given) >= FULL_ID_LENGTH:
        return given
    if len(given) < 4:
        raise UsageError(f"checkpoint {given!r}: give at least 4 characters of its id")
    history = ThreadHistory(client, thread_id, page_size=500)
    await history.load_all()
    plain = given.replace("-", "")
    found = [
        row.checkpoint_id
        for row in history.rows
        if row.checkpoint_id.replace("-", "").endswith(plain) or row.checkpoint_id.startswith(given)
    ]
    if not found:
        raise NotThere(f"no checkpoint of thread {thread_id} has an id like {given!r}")
    if len(found) > 1:
        raise NotThere(f"checkpoint {given!r} is ambiguous: {len(found)} ids match")
    return found[0]


async def state_and_writes(
    client: AgentServerClient, thread_id: str, checkpoint_id: str
) -> tuple[ThreadState, dict[str, Any] | None]:
    from agent_tui.threads.writes import checkpoint_writes

    state = await client.threads.get_state(thread_id, checkpoint_id)
    parent_id = state.parent_checkpoint_id
    parent = await client.threads.get_state(thread_id, parent_id) if parent_id else None
    writes = checkpoint_writes(state, parent)
    return state, writes.nodes if writes.known_nodes else {"(update)": writes.nodes[""]}


def show_diff(args: argparse.Namespace) -> int:
    from agent_tui.threads.checkpoint_diff import diff_checkpoints

    async def work(client: AgentServerClient) -> int:
        first = await resolve_checkpoint(client, args.thread_id, args.checkpoint_a)
        second = await resolve_checkpoint(client, args.thread_id, args.checkpoint_b)
        a, writes_a = await state_and_writes(client, args.thread_id, first)
        b, writes_b = await state_and_writes(client, args.thread_id, second)
        diff = diff_checkpoints(a, b, writes_a=writes_a, writes_b=writes_b)
        if args.json:
            print_json(diff.as_json())
        else:
            for line in diff.lines():
                say(line)
        return EXIT_OK

    return run(args, work)
