"""The calls a thread view's Calls tab lists: those of one agent-server run (the selected
checkpoint's), or of the whole thread when the checkpoint has no run (a person's
``update`` or ``fork``), with their totals. Columns only (`calls.list_calls`): fast on
thousands of calls; one call whole is `read_call`. Blocking: the UI calls both from a
thread."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from agent_tui.traces import run_fields
from agent_tui.traces.calls import CallSummary, list_calls
from agent_tui.traces.query import StoreUnreadable, TracedRun, get_run, open_for_reading
from agent_tui.traces.store import TraceStore
from agent_tui.traces.totals import ModelPrice, RunTotals, run_totals


@dataclass(frozen=True, slots=True)
class ScopedCalls:
    """What the Calls tab shows: whose calls, the calls in order, their totals."""

    thread_id: str
    run_id: str | None
    """The agent server's run whose calls these are; None: the whole thread's."""
    calls: list[CallSummary]
    totals: RunTotals | None
    """None when only the first calls were read (``complete`` is False)."""
    complete: bool
    """Every call is in ``calls`` (else only the first: see `read_scoped_calls`)."""
    thread_traced: bool
    """The store holds some trace of the thread (of this run or another)."""
    run_traced: bool
    """The store holds a trace of ``run_id`` (always True for the whole thread's)."""


class NoTraceStore(Exception):
    """There is no trace store on this machine (nothing was ever traced here), or it
    cannot be read; the message says which."""


def read_scoped_calls(
    thread_id: str,
    run_id: str | None,
    *,
    prices: Mapping[str, ModelPrice] | None = None,
    store_path: Path | None = None,
    first: int | None = None,
) -> ScopedCalls:
    """The calls of ``run_id`` (None: of the whole thread) from the store at
    ``store_path`` (default: the user's), with their totals; with ``first``, only that
    many calls and no totals (a screenful at once, the rest after). `NoTraceStore` when
    there is no store."""
    try:
        store = open_for_reading(store_path)
    except StoreUnreadable as error:
        raise NoTraceStore(str(error)) from None
    if store is None:
        raise NoTraceStore("nothing has been traced on this machine yet")
    try:
        return scoped_calls(store, thread_id, run_id, prices=prices, first=first)
    except sqlite3.Error as error:
        raise NoTraceStore(f"cannot read the trace store: {error}") from None
    finally:
        store.close()


def read_call(call_id: str, *, store_path: Path | None = None) -> TracedRun | None:
    """One call whole (its body: messages, parameters, answer), with the runs under it;
    None when the store no longer has it (pruned). `NoTraceStore` when there is none."""
    try:
        store = open_for_reading(store_path)
    except StoreUnreadable as error:
        raise NoTraceStore(str(error)) from None
    if store is None:
        raise NoTraceStore("nothing has been traced on this machine yet")
    try:
        return get_run(store, call_id)
    except sqlite3.Error as error:
        raise NoTraceStore(f"cannot read the trace store: {error}") from None
    finally:
        store.close()


def scoped_calls(
    store: TraceStore,
    thread_id: str,
    run_id: str | None,
    *,
    prices: Mapping[str, ModelPrice] | None = None,
    first: int | None = None,
) -> ScopedCalls:
    """`read_scoped_calls` on an open store."""
    roots = _root_times(store, thread_id)
    if run_id is not None:
        calls = list_calls(store, run_id=run_id, limit=first)
        traced = run_id in roots or bool(calls)
    else:
        calls = list_calls(store, thread_id=thread_id, limit=first)
        traced = bool(roots) or bool(calls)
    complete = first is None
    totals: RunTotals | None = None
    if complete and run_id is not None:
        totals = run_totals(calls, wall=roots.get(run_id, (None, None)), prices=prices)
    elif complete:
        totals = run_totals(calls, prices=prices)
        walls = [(end - start).total_seconds() for start, end in roots.values() if start and end]
        if walls:
            totals = dataclasses.replace(totals, wall_seconds=sum(walls))
    return ScopedCalls(
        thread_id=thread_id,
        run_id=run_id,
        calls=calls,
        totals=totals,
        complete=complete,
        thread_traced=bool(roots) or bool(calls),
        run_traced=traced,
    )


Times = tuple[datetime | None, datetime | None]


def _root_times(store: TraceStore, thread_id: str) -> dict[str, Times]:
    """The start and end of each traced run of the thread, by the agent server's run id
    (or the trace's own id when it has none)."""
    with store.reading() as db:
        rows = db.execute(
            "SELECT COALESCE(graph_run_id, trace_id), start_time, end_time FROM runs"
            " WHERE thread_id = ? AND parent_run_id IS NULL",
            (thread_id,),
        ).fetchall()
    parse = run_fields.parse_time
    return {row[0]: (parse(row[1]), parse(row[2])) for row in rows if row[0]}
