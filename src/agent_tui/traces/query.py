"""Reading the trace store: traces by thread or run, one run with its children, and the
model and tool calls of a trace in order. Headless; what the CLI and the UI read.

A *trace* is one root run and everything under it; for a run of an agent server it is
that run (its id is the server's run id, also in each run's ``metadata.run_id``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_tui.traces import json_codec, run_fields
from agent_tui.traces.store import DB_FILE, SCHEMA_VERSION, TraceStore

RUNNING, SUCCESS, ERROR = "running", "success", "error"


@dataclass(frozen=True, slots=True)
class TraceSummary:
    """One trace as a list shows it."""

    trace_id: str
    name: str | None
    thread_id: str | None
    graph_run_id: str | None
    start_time: datetime | None
    end_time: datetime | None
    status: str
    model_calls: int
    tool_calls: int
    input_tokens: int | None
    """Of its model calls that reported them; None when none did (not 0)."""
    output_tokens: int | None

    def as_json(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "name": self.name,
            "thread_id": self.thread_id,
            "run_id": self.graph_run_id,
            "start_time": _iso(self.start_time),
            "end_time": _iso(self.end_time),
            "status": self.status,
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


@dataclass(slots=True)
class TracedRun:
    """One run: a chain (a graph or a node), a model call (``run_type`` "llm"), a tool
    call ("tool") …; ``raw`` is the run as stored (redacted), ``children`` in order."""

    raw: dict[str, Any]
    children: list[TracedRun] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.raw.get("id", ""))

    @property
    def trace_id(self) -> str | None:
        return _opt(self.raw.get("trace_id"))

    @property
    def parent_run_id(self) -> str | None:
        return _opt(self.raw.get("parent_run_id"))

    @property
    def name(self) -> str:
        return str(self.raw.get("name") or "")

    @property
    def run_type(self) -> str:
        return str(self.raw.get("run_type") or "")

    @property
    def start_time(self) -> datetime | None:
        return run_fields.parse_time(self.raw.get("start_time"))

    @property
    def end_time(self) -> datetime | None:
        return run_fields.parse_time(self.raw.get("end_time"))

    @property
    def error(self) -> str | None:
        return _opt(self.raw.get("error"))

    @property
    def status(self) -> str:
        if self.error:
            return ERROR
        return SUCCESS if self.raw.get("end_time") else RUNNING

    @property
    def metadata(self) -> dict[str, Any]:
        return run_fields.metadata(self.raw)

    @property
    def node(self) -> str | None:
        return _opt(self.metadata.get("langgraph_node"))

    @property
    def checkpoint_ns(self) -> str | None:
        return run_fields.checkpoint_ns(self.raw)

    @property
    def thread_id(self) -> str | None:
        return _opt(self.metadata.get("thread_id"))

    @property
    def model(self) -> str | None:
        return run_fields.model_name(self.raw)

    @property
    def provider(self) -> str | None:
        return run_fields.provider(self.raw)

    @property
    def invocation_params(self) -> dict[str, Any]:
        return run_fields.invocation_params(self.raw)

    @property
    def inputs(self) -> dict[str, Any]:
        value = self.raw.get("inputs")
        return value if isinstance(value, dict) else {}

    @property
    def outputs(self) -> dict[str, Any]:
        value = self.raw.get("outputs")
        return value if isinstance(value, dict) else {}

    @property
    def messages(self) -> list[Any]:
        """The messages a model call was sent (its first prompt's, as serialized)."""
        messages = self.inputs.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[0], list):
            return list(messages[0])
        return list(messages) if isinstance(messages, list) else []

    @property
    def tokens(self) -> tuple[int | None, int | None, int | None]:
        """Input, output and total tokens (a model call's)."""
        return run_fields.token_usage(self.raw)

    @property
    def input_tokens(self) -> int | None:
        return self.tokens[0] if self.run_type == "llm" else None

    @property
    def output_tokens(self) -> int | None:
        return self.tokens[1] if self.run_type == "llm" else None

    @property
    def finish_reason(self) -> str | None:
        return run_fields.finish_reason(self.raw)

    @property
    def first_token_time(self) -> datetime | None:
        return run_fields.first_token_time(self.raw)

    @property
    def latency(self) -> float | None:
        """Seconds from start to end."""
        start, end = self.start_time, self.end_time
        return (end - start).total_seconds() if start and end else None

    @property
    def time_to_first_token(self) -> float | None:
        start, first = self.start_time, self.first_token_time
        return (first - start).total_seconds() if start and first else None

    def walk(self) -> list[TracedRun]:
        """This run and every run under it, in order (depth first)."""
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found

    def calls(self) -> list[TracedRun]:
        """The model and tool calls under this run (itself included), in order."""
        return [run for run in self.walk() if run.run_type in ("llm", "tool")]


def default_store_path() -> Path:
    from agent_tui.settings import paths

    return paths.data_dir() / "traces" / DB_FILE


class StoreUnreadable(Exception):
    """The store's file is there but cannot be read (damaged, another version, no access)."""


def open_for_reading(path: Path | None = None) -> TraceStore | None:
    """The store at ``path`` (default: the user's), read-only; None when there is none, or
    none of this version yet (a collector of this version starts it afresh).
    `StoreUnreadable` when the file cannot be read."""
    path = path or default_store_path()
    if not path.exists():
        return None
    try:
        store = TraceStore(path, readonly=True)
    except sqlite3.Error as error:
        raise StoreUnreadable(f"cannot read the trace store {path}: {error}") from None
    try:
        with store.reading() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as error:
        store.close()
        raise StoreUnreadable(f"cannot read the trace store {path}: {error}") from None
    if version != SCHEMA_VERSION:
        store.close()
        return None
    return store


def list_traces(
    store: TraceStore,
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    limit: int = 100,
) -> list[TraceSummary]:
    """Traces, newest first: all, a thread's, or the one of a run (a trace id, a run id
    in it, or the agent server's run id)."""
    with store.reading() as db:
        if run_id is not None:
            found = db.execute(
                "SELECT DISTINCT trace_id FROM runs WHERE id = ? OR graph_run_id = ?"
                " OR trace_id = ?",
                (run_id, run_id, run_id),
            )
        elif thread_id is not None:
            found = db.execute(
                "SELECT DISTINCT trace_id FROM runs WHERE thread_id = ?", (thread_id,)
            )
        else:
            found = db.execute(
                "SELECT trace_id FROM runs WHERE parent_run_id IS NULL"
                " ORDER BY start_time DESC LIMIT ?",
                (limit,),
            )
        trace_ids = [row[0] for row in found if row[0]]
        summaries = [_summary(db, trace_id) for trace_id in trace_ids]
    summaries.sort(key=lambda s: s.start_time.timestamp() if s.start_time else 0, reverse=True)
    return summaries[:limit]


def _summary(db: sqlite3.Connection, trace_id: str) -> TraceSummary:
    totals = db.execute(
        "SELECT SUM(run_type = 'llm'), SUM(run_type = 'tool'), SUM(input_tokens),"
        " SUM(output_tokens), MAX(failed) FROM runs WHERE trace_id = ?",
        (trace_id,),
    ).fetchone()
    root = db.execute(
        "SELECT name, thread_id, graph_run_id, start_time, end_time, failed FROM runs"
        " WHERE trace_id = ? ORDER BY parent_run_id IS NOT NULL, dotted_order LIMIT 1",
        (trace_id,),
    ).fetchone()
    thread = root["thread_id"] or _first(db, "thread_id", trace_id)
    graph_run = root["graph_run_id"] or _first(db, "graph_run_id", trace_id)
    status = ERROR if root["failed"] else SUCCESS if root["end_time"] else RUNNING
    return TraceSummary(
        trace_id=trace_id,
        name=root["name"],
        thread_id=thread,
        graph_run_id=graph_run,
        start_time=run_fields.parse_time(root["start_time"]),
        end_time=run_fields.parse_time(root["end_time"]),
        status=status,
        model_calls=totals[0] or 0,
        tool_calls=totals[1] or 0,
        # SQL's SUM of no known value is NULL: unknown, unless there was no model call.
        input_tokens=totals[2] if totals[2] is not None or totals[0] else 0,
        output_tokens=totals[3] if totals[3] is not None or totals[0] else 0,
    )


def _first(db: sqlite3.Connection, column: str, trace_id: str) -> str | None:
    # `column` is one of ours, never a caller's text.
    row = db.execute(
        f"SELECT {column} FROM runs WHERE trace_id = ? AND {column} IS NOT NULL LIMIT 1",
        (trace_id,),
    ).fetchone()
    return row[0] if row else None


def get_run(store: TraceStore, run_id: str) -> TracedRun | None:
    """One run (or the root of the trace ``run_id`` names) with every run under it."""
    with store.reading() as db:
        row = db.execute(
            "SELECT trace_id FROM runs WHERE id = ? OR graph_run_id = ? OR trace_id = ?"
            " ORDER BY id = ? DESC, parent_run_id IS NOT NULL LIMIT 1",
            (run_id, run_id, run_id, run_id),
        ).fetchone()
        if row is None:
            return None
        bodies = [
            json_codec.loads(body)
            for (body,) in db.execute(
                "SELECT body FROM runs JOIN run_bodies USING (id) WHERE trace_id = ?"
                " ORDER BY dotted_order",
                (row[0],),
            )
        ]
    runs = build_tree(bodies)
    wanted = next((run for run in runs if run.id == run_id), None)
    if wanted is not None:
        return wanted
    roots = [run for run in runs if run.parent_run_id is None]
    return roots[0] if roots else (runs[0] if runs else None)


def build_tree(bodies: Sequence[dict[str, Any]]) -> list[TracedRun]:
    """Every run of ``bodies`` (in dotted order), each with its children attached."""
    runs = [TracedRun(body) for body in bodies]
    by_id = {run.id: run for run in runs}
    for run in runs:
        parent = by_id.get(run.parent_run_id or "")
        if parent is not None and parent is not run:
            parent.children.append(run)
    return runs


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _opt(value: Any) -> str | None:
    return None if value in (None, "") else str(value)
