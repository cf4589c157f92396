"""What the trace tests share: a collector in a folder of the test's own, a real
`langsmith` client pointed at it, and waiting for the traces a process sends."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import httpx
import langsmith

from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.trace_collector import TraceCollector
from agent_tui.local.trace_collector.process import CollectorProcess
from agent_tui.traces.query import TracedRun, TraceSummary, get_run, list_traces
from agent_tui.traces.store import TraceStore
from tests.support.openai_standin import OpenAIStandIn

TRACED_CONFIG = Path(__file__).resolve().parents[1] / "graphs" / "traced" / "langgraph.json"
"""The traced test graphs (a `ChatOpenAI` agent against the OpenAI stand-in)."""

T = TypeVar("T")


def sdk_client(collector: TraceCollector | CollectorProcess, **options: object) -> langsmith.Client:
    """The official client, as a traced program makes it from LANGSMITH_ENDPOINT/API_KEY."""
    return langsmith.Client(api_url=collector.url, api_key=collector.api_key, **options)  # type: ignore[arg-type]


def run_weather_agent(url: str, text: str, metadata: dict[str, str]) -> tuple[str, str]:
    """A run of the `weather` graph (`tests/graphs/traced`) on a new thread, joined: its
    thread and run ids."""
    with httpx.Client(base_url=url, timeout=60) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        answer = http.post(
            f"/threads/{thread_id}/runs",
            json={
                "assistant_id": "weather",
                "input": {"messages": [{"role": "user", "content": text}]},
                "metadata": metadata,
            },
        )
        answer.raise_for_status()
        run_id = answer.json()["run_id"]
        http.get(f"/threads/{thread_id}/runs/{run_id}/join").raise_for_status()
    return thread_id, run_id


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
    collector: TraceCollector | TraceStore,
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    calls: int,
) -> tuple[TraceSummary, TracedRun]:
    """The one trace of a thread (or run) once its root has ended with ``calls`` model
    and tool calls, and its tree (from a collector's store, or another process's)."""
    store = collector.store if isinstance(collector, TraceCollector) else collector

    def read() -> tuple[TraceSummary, TracedRun] | None:
        found = list_traces(store, thread_id=thread_id, run_id=run_id)
        if len(found) != 1 or found[0].status == "running":
            return None
        if found[0].model_calls + found[0].tool_calls < calls:
            return None
        tree = get_run(store, found[0].trace_id)
        if tree is None or any(run.status == "running" for run in tree.walk()):
            return None
        return found[0], tree

    return wait_until(read, f"a finished trace of {thread_id or run_id} with {calls} calls")


def stored_bytes(collector: TraceCollector) -> bytes:
    """Every byte of the store's files (the database and its write-ahead log)."""
    folder = collector.store.path.parent
    return b"".join(p.read_bytes() for p in sorted(folder.glob("traces.sqlite3*")))


@contextlib.contextmanager
def traced_agent_server(
    collector: TraceCollector | CollectorProcess, data_dir: Path
) -> Iterator[str]:
    """The traced graphs' server (its URL), tracing to ``collector``, its model the
    OpenAI stand-in."""
    standin = OpenAIStandIn()
    standin.start()
    try:
        env = {
            **collector.tracing_environment(),
            "OPENAI_BASE_URL": standin.url,
            "OPENAI_API_KEY": "sk-standin-0123456789abcdef",
        }
        server = EmbeddedAgentServer(
            TRACED_CONFIG, data_dir=data_dir, log_file=data_dir / "server.log", env=env
        )
        with server:
            yield server.url
    finally:
        standin.stop()


@contextlib.contextmanager
def untraced_agent_server(data_dir: Path) -> Iterator[str]:
    """The same graphs on a server that traces nowhere (as a server agent-tui did not
    start): its URL. Its calls are known only from the `events` stream mode."""
    standin = OpenAIStandIn()
    standin.start()
    try:
        env = {"OPENAI_BASE_URL": standin.url, "OPENAI_API_KEY": "sk-standin-0123456789abcdef"}
        server = EmbeddedAgentServer(
            TRACED_CONFIG, data_dir=data_dir, log_file=data_dir / "server.log", env=env
        )
        with server:
            yield server.url
    finally:
        standin.stop()
