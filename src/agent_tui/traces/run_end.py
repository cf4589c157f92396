"""A run's totals once its trace is whole, for what shows at a run's end: the chat's quiet
totals line and `agent-tui run`'s. Headless.

The `langsmith` SDK in the server sends a run in batches, a few tens of milliseconds
apart: the root's end and the last call's patch reach the store a moment after the run's
stream has ended. `wait_for_totals` waits for them, briefly. Whether a run is traced here
at all only the store can say (a `--url` server may trace to `agent-tui traces serve`,
a local one may have tracing off; a run's record does not say): a traced run's first
pieces arrive within `FIRST_PIECES` seconds of its start, so a run with none by then is
not traced here, and the wait ends at once for a run that ran longer than that. With no
store at all (nothing ever traced on this machine) nothing is waited for.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path

from agent_tui.traces import run_fields
from agent_tui.traces.totals import CallLike, ModelPrice, RunTotals, run_totals

FIRST_PIECES = 2.5
"""Seconds from a run's start within which a traced run's first pieces are in the store:
the SDK sends compressed batches about a second apart (measured: the first ~1.0 s after
the start), the rest is a loaded machine's margin. An untraced run shorter than this is
known not traced once this has passed."""
WHOLE_WITHIN = 8.0
"""Seconds after a run's end within which its trace is whole (the SDK's last batch)."""
POLL = 0.05


class TraceState(Enum):
    ABSENT = "absent"  # nothing of the run in the store
    PARTIAL = "partial"  # some of it: its root or a call has not ended yet
    WHOLE = "whole"


def read_totals(
    run_id: str,
    *,
    store_path: Path | None = None,
    prices: Mapping[str, ModelPrice] | None = None,
) -> tuple[TraceState, RunTotals | None]:
    """How much of the agent server's run ``run_id`` the trace store (default: the
    user's) has, and its totals once it has it whole. Blocking: call it from a thread."""
    from agent_tui.traces.calls import list_calls
    from agent_tui.traces.query import StoreUnreadable, open_for_reading

    try:
        store = open_for_reading(store_path)
    except StoreUnreadable:
        return TraceState.ABSENT, None
    if store is None:
        return TraceState.ABSENT, None
    try:
        with store.reading() as db:
            root = db.execute(
                "SELECT trace_id, start_time, end_time FROM runs WHERE (id = ? OR"
                " graph_run_id = ?) AND parent_run_id IS NULL LIMIT 1",
                (run_id, run_id),
            ).fetchone()
            if root is None:
                seen = db.execute(
                    "SELECT 1 FROM runs WHERE graph_run_id = ? LIMIT 1", (run_id,)
                ).fetchone()
                return (TraceState.ABSENT if seen is None else TraceState.PARTIAL), None
            trace_id, start, end = root[0], root[1], root[2]
            still_open = db.execute(
                "SELECT COUNT(*) FROM runs WHERE trace_id = ? AND end_time IS NULL",
                (trace_id,),
            ).fetchone()[0]
        if end is None or still_open:
            return TraceState.PARTIAL, None
        calls = list_calls(store, run_id=run_id)
    except sqlite3.Error:
        return TraceState.PARTIAL, None  # a store being written: read again
    finally:
        store.close()
    wall = (run_fields.parse_time(start), run_fields.parse_time(end))
    return TraceState.WHOLE, run_totals(calls, wall=wall, prices=prices)


async def wait_for_totals(
    run_id: str,
    *,
    started: float,
    store_path: Path | None = None,
    prices: Mapping[str, ModelPrice] | None = None,
    first_pieces: float = FIRST_PIECES,
    whole_within: float = WHOLE_WITHIN,
) -> RunTotals | None:
    """The totals of the run ``run_id`` (which started at ``started``, `time.monotonic`,
    and has ended) once its trace is whole; None when it is not traced here, or its trace
    did not become whole in time (totals of part of a run would mislead)."""
    ended = time.monotonic()
    while True:
        state, totals = await asyncio.to_thread(
            read_totals, run_id, store_path=store_path, prices=prices
        )
        if totals is not None:
            return totals
        now = time.monotonic()
        if state is TraceState.ABSENT and now > started + first_pieces:
            return None
        if now > ended + whole_within:
            return None
        await asyncio.sleep(POLL)


async def totals_at_end(
    run_id: str | None,
    *,
    started: float,
    live: Sequence[CallLike] = (),
    wall: tuple[datetime | None, datetime | None] = (None, None),
    store_path: Path | None = None,
) -> RunTotals | None:
    """What a run's end says of it: its trace's totals when it was traced here, else the
    totals of the calls it streamed live (``events`` mode; ``wall``: when it streamed),
    else None (nothing to say)."""
    if run_id is None:
        return None
    from agent_tui.traces.totals import configured_prices

    prices = await asyncio.to_thread(configured_prices)
    traced = await wait_for_totals(run_id, started=started, store_path=store_path, prices=prices)
    if traced is not None or not live:
        return traced
    return run_totals(live, wall=wall, prices=prices)
