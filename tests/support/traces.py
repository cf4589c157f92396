"""What the trace tests share: a collector in a folder of the test's own, a real
`langsmith` client pointed at it, and waiting for the traces a process sends."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import langsmith

from agent_tui.local.trace_collector import TraceCollector
from agent_tui.traces.query import TracedRun, TraceSummary, get_run, list_traces

T = TypeVar("T")


def sdk_client(collector: TraceCollector, **options: object) -> langsmith.Client:
    """The official client, as a traced program makes it from LANGSMITH_ENDPOINT/API_KEY."""
    return langsmith.Client(api_url=collector.url, api_key=collector.api_key, **options)  # type: ignore[arg-type]


def wait_until(read: Callable[[], T | None], what: str, timeout: float = 30.0) -> T:
    """``read()`` once it gives something; another process's traces come when its SDK
    sends its batch, which no event of ours can wait on: polled, within a deadline."""
    deadline = time.monotonic() + timeout
    while True:
        found = read()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def finished_trace(
    collector: TraceCollector,
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    calls: int,
) -> tuple[TraceSummary, TracedRun]:
    """The one trace of a thread (or run) once its root has ended with ``calls`` model
    and tool calls, and its tree."""

    def read() -> tuple[TraceSummary, TracedRun] | None:
        found = list_traces(collector.store, thread_id=thread_id, run_id=run_id)
        if len(found) != 1 or found[0].status == "running":
            return None
        if found[0].model_calls + found[0].tool_calls < calls:
            return None
        tree = get_run(collector.store, found[0].trace_id)
        if tree is None or any(run.status == "running" for run in tree.walk()):
            return None
        return found[0], tree

    return wait_until(read, f"a finished trace of {thread_id or run_id} with {calls} calls")


def stored_bytes(collector: TraceCollector) -> bytes:
    """Every byte of the store's files (the database and its write-ahead log)."""
    folder = collector.store.path.parent
    return b"".join(p.read_bytes() for p in sorted(folder.glob("traces.sqlite3*")))
