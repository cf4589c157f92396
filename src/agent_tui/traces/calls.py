"""The model and tool calls of a thread or a run, in order, read from the store's columns
alone (no run body is read): what a calls list shows, fast on thousands of calls. One
call whole (messages, parameters, answer) is `query.get_run`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_tui.traces import run_fields
from agent_tui.traces.query import ERROR, RUNNING, SUCCESS
from agent_tui.traces.store import TraceStore

_COLUMNS = (
    "id, trace_id, parent_run_id, run_type, name, node, checkpoint_ns, thread_id,"
    " graph_run_id, model, provider, start_time, end_time, first_token, input_tokens,"
    " output_tokens, finish_reason, failed"
)


@dataclass(frozen=True, slots=True)
class CallSummary:
    """One model call (``run_type`` "llm") or tool call ("tool")."""

    id: str
    trace_id: str | None
    parent_run_id: str | None
    run_type: str
    name: str
    node: str | None
    checkpoint_ns: str | None
    thread_id: str | None
    graph_run_id: str | None
    model: str | None
    provider: str | None
    start_time: datetime | None
    end_time: datetime | None
    first_token_time: datetime | None
    input_tokens: int | None
    output_tokens: int | None
    finish_reason: str | None
    status: str

    @property
    def latency(self) -> float | None:
        if self.start_time is None or self.end_time is None:
            return None
        return (self.end_time - self.start_time).total_seconds()

    @property
    def time_to_first_token(self) -> float | None:
        if self.start_time is None or self.first_token_time is None:
            return None
        return (self.first_token_time - self.start_time).total_seconds()


def list_calls(
    store: TraceStore,
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    run_types: tuple[str, ...] = ("llm", "tool"),
    limit: int | None = None,
) -> list[CallSummary]:
    """The calls of a thread's traces, or of one trace (``run_id``: its id or the agent
    server's run id), oldest first and in order within each trace; the first ``limit``
    of them when given (a list's first screenful, before the rest)."""
    cap = "" if limit is None else f" LIMIT {int(limit)}"
    if (thread_id is None) == (run_id is None):
        raise ValueError("give a thread id or a run id")
    marks = ",".join("?" * len(run_types))
    with store.reading() as db:
        cursor = db.cursor()
        cursor.row_factory = None  # tuples: reading 5,000 rows by name took half the time
        if thread_id is not None:
            rows = cursor.execute(
                f"SELECT {_COLUMNS} FROM runs WHERE thread_id = ? AND run_type IN ({marks})"
                f" ORDER BY dotted_order{cap}",
                (thread_id, *run_types),
            ).fetchall()
        else:
            rows = cursor.execute(
                f"SELECT {_COLUMNS} FROM runs WHERE trace_id IN (SELECT trace_id FROM runs"
                " WHERE id = ? OR graph_run_id = ? OR trace_id = ? LIMIT 1)"
                f" AND run_type IN ({marks}) ORDER BY dotted_order{cap}",
                (run_id, run_id, run_id, *run_types),
            ).fetchall()
    return [_call(row) for row in rows]


def _call(row: tuple[Any, ...]) -> CallSummary:
    (
        run_id, trace_id, parent_run_id, run_type, name, node, checkpoint_ns, thread_id,
        graph_run_id, model, provider, start_time, end_time, first_token, input_tokens,
        output_tokens, finish_reason, failed,
    ) = row  # fmt: skip
    parse = run_fields.parse_time
    return CallSummary(
        id=run_id,
        trace_id=trace_id,
        parent_run_id=parent_run_id,
        run_type=run_type,
        name=name or "",
        node=node,
        checkpoint_ns=checkpoint_ns,
        thread_id=thread_id,
        graph_run_id=graph_run_id,
        model=model,
        provider=provider,
        start_time=parse(start_time),
        end_time=parse(end_time),
        first_token_time=parse(first_token),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        finish_reason=finish_reason,
        status=ERROR if failed else SUCCESS if end_time else RUNNING,
    )
