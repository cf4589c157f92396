"""What the trace tests share: a collector in a folder of the test's own, a real
`langsmith` client pointed at it, and waiting for the traces a process sends."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import langsmith

from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.trace_collector import TraceCollector
from agent_tui.local.trace_collector.process import CollectorProcess
from agent_tui.traces.query import TracedRun, TraceSummary, get_run, list_traces
from agent_tui.traces.store import TraceStore
from tests.support.openai_standin import OpenAIStandIn

TRACED_CONFIG = Path(__file__).resolve().parents[1] / "graphs" / "traced" / "langgraph.json"
"""The traced test graphs: ``weather``, a `ChatOpenAI` agent against the OpenAI stand-in
(which reports its tokens), and ``chat``, agent-tui's demo chat (whose model does not)."""

T = TypeVar("T")


def sdk_client(collector: TraceCollector | CollectorProcess, **options: object) -> langsmith.Client:
    """The official client, as a traced program makes it from LANGSMITH_ENDPOINT/API_KEY."""
    return langsmith.Client(api_url=collector.url, api_key=collector.api_key, **options)  # type: ignore[arg-type]


def run_weather_agent(
    url: str, text: str, metadata: dict[str, str], *, graph: str = "weather"
) -> tuple[str, str]:
    """A run of the `weather` graph (`tests/graphs/traced`; or ``graph``) on a new thread,
    joined: its thread and run ids."""
    with httpx.Client(base_url=url, timeout=60) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        answer = http.post(
            f"/threads/{thread_id}/runs",
            json={
                "assistant_id": graph,
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


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?")
_COMPACT_TIME = re.compile(r"\d{8}T\d{12}Z")  # a dotted order's
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_MACHINE_KEYS = ("version", "platform")  # of the libraries and the machine that ran it
STEADY_START = datetime(2026, 1, 2, 3, 4, 5)


def steady_run(run: TracedRun) -> TracedRun:
    """``run`` (a real one) with what differs from one test run to the next made fixed:
    ids numbered in the order they appear, times moved to `STEADY_START` (each later one
    a quarter of a second after the one before it, so latencies stay positive), ports
    and the versions of the libraries and the machine replaced by words. For a
    snapshot."""
    ids: dict[str, str] = {}
    times = sorted(set(_TIME.findall(json.dumps(run.raw))))
    moved = {
        text: (STEADY_START + timedelta(seconds=0.25 * index)).isoformat() + "+00:00"
        for index, text in enumerate(times)
    }

    def same_id(match: re.Match[str]) -> str:
        return ids.setdefault(match.group(0), f"00000000-0000-4000-8000-{len(ids) + 1:012d}")

    def steady(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: steady(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [steady(item, key) for item in value]
        if not isinstance(value, str):
            return value
        if any(word in key for word in _MACHINE_KEYS):
            return f"<{key}>"
        value = _TIME.sub(lambda match: moved.get(match.group(0), match.group(0)), value)
        value = _COMPACT_TIME.sub("20260102T030405000000Z", value)
        value = _PORT.sub("127.0.0.1:PORT", value)
        return _UUID.sub(same_id, value)

    raw = steady(run.raw)
    for name in ("runtime", "lc_versions"):  # versions and the machine, by name
        for holder in (raw.get("extra", {}), raw.get("extra", {}).get("metadata", {})):
            if name in holder:
                holder[name] = f"<{name}>"
    return TracedRun(raw, [steady_run(child) for child in run.children])
