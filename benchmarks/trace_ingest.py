"""Trace ingestion: how many runs a second the local trace collector stores.

    uv run python benchmarks/trace_ingest.py [--traces 5000] [--senders 4]
    uv run python benchmarks/trace_ingest.py --quick   # 400 traces a route (seconds)

The collector runs as users run it, `agent-tui traces serve` in its own process, on a
fresh store. Traces shaped like a LangGraph agent's (a graph run, a model call with its
messages, parameters, usage and token events, a tool call: three runs, each a post and a
patch) are sent the ways the `langsmith` SDK sends them: zstd-compressed multipart (what
agent-tui's own servers send), plain multipart, and the batch endpoint, 100 runs'
operations a request (the SDK's default batch), from `--senders` threads at once (the
SDK scales up its sending threads under load), after one untimed trace that warms the
collector up. The bodies are made before the clock starts, so the figure is the collector's: the runs stored per second from the first
request to the last answer (each answer comes once its runs are committed).

Then the read a calls view makes: the calls of one thread with ``--thread-calls`` model
and tool calls (5,000; 1,000 with ``--quick``), listed from the store's columns
(`traces.calls.list_calls`), the median of 5 reads.

Checked (exit status 1 if not): every run is stored with its post and its patch merged,
every route stores at least 500 runs a second (the target of issue #34), and the calls of
the thread are listed whole, in order, within 200 ms (a calls view that opens on a thread
of 5,000 calls within 200 ms needs its read to take less).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import zstandard

from benchkit import add_options, arm, check

TARGET_RUNS_PER_SECOND = 500
RUNS_PER_REQUEST = 100
QUICK_TRACES = 400
BOUNDARY = uuid.uuid4().hex


def agent_trace(number: int) -> list[tuple[str, dict[str, Any]]]:
    """One agent run's posts and patches: graph, model call, tool call."""
    root, llm, tool = (str(uuid.uuid4()) for _ in range(3))
    start = datetime.now(UTC) + timedelta(milliseconds=number)
    stamp = f"{start:%Y%m%dT%H%M%S%fZ}"
    later = f"{start + timedelta(microseconds=500):%Y%m%dT%H%M%S%fZ}"  # the tool, after
    thread = f"thread-{number % 50}"
    meta = {"thread_id": thread, "run_id": root, "graph_id": "agent"}
    llm_meta = {
        **meta,
        "langgraph_node": "agent",
        "langgraph_checkpoint_ns": f"agent:{llm}",
        "ls_provider": "openai",
        "ls_model_name": "gpt-4o-mini",
        "usage_metadata": {"input_tokens": 812, "output_tokens": 64, "total_tokens": 876},
    }
    messages = [
        {"type": "system", "content": "You are a helpful assistant. " * 8},
        {"type": "human", "content": f"Question {number}: what is the weather in Paris?"},
    ]
    end = (start + timedelta(seconds=1)).isoformat()
    runs = [
        (root, None, "graph", "chain", stamp + root, meta, {"messages": messages}),
        (
            llm,
            root,
            "ChatOpenAI",
            "llm",
            f"{stamp}{root}.{stamp}{llm}",
            llm_meta,
            {"messages": [messages]},
        ),
        (
            tool,
            root,
            "lookup_weather",
            "tool",
            f"{stamp}{root}.{later}{tool}",
            {**meta, "langgraph_node": "tools"},
            {"city": "Paris"},
        ),
    ]
    operations: list[tuple[str, dict[str, Any]]] = []
    for run_id, parent, name, run_type, dotted, metadata, inputs in runs:
        common = {"id": run_id, "trace_id": root, "dotted_order": dotted}
        operations.append(
            (
                "post",
                {
                    **common,
                    "parent_run_id": parent,
                    "name": name,
                    "run_type": run_type,
                    "start_time": start.isoformat(),
                    "inputs": inputs,
                    "extra": {
                        "metadata": metadata,
                        "invocation_params": {"model": "gpt-4o-mini", "temperature": 0.2},
                    },
                },
            )
        )
        events = [{"name": "new_token", "time": start.isoformat()}] * (
            16 if run_type == "llm" else 0
        )
        operations.append(
            (
                "patch",
                {
                    **common,
                    "end_time": end,
                    "outputs": {"answer": "Sunny, 21 C " * 10},
                    "events": events,
                    "extra": {"metadata": metadata},
                },
            )
        )
    return operations


def multipart_body(operations: list[tuple[str, dict[str, Any]]]) -> bytes:
    """As the SDK writes it: the run less its large fields, then one part per field."""
    parts = []
    for operation, run in operations:
        big = {k: run[k] for k in ("inputs", "outputs", "events", "extra") if k in run}
        rest = {k: v for k, v in run.items() if k not in big}
        for name, value in [(f"{operation}.{run['id']}", rest)] + [
            (f"{operation}.{run['id']}.{k}", v) for k, v in big.items()
        ]:
            data = json.dumps(value).encode()
            parts.append(
                f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n'
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                + data
                + b"\r\n"
            )
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def requests_for(route: str, traces: int) -> list[tuple[str, bytes, dict[str, str]]]:
    operations = [op for number in range(traces) for op in agent_trace(number)]
    per_request = RUNS_PER_REQUEST * 2  # a post and a patch a run
    made = []
    for start in range(0, len(operations), per_request):
        chunk = operations[start : start + per_request]
        if route == "batch":
            body = {
                "post": [r for o, r in chunk if o == "post"],
                "patch": [r for o, r in chunk if o == "patch"],
            }
            made.append(
                ("/runs/batch", json.dumps(body).encode(), {"Content-Type": "application/json"})
            )
            continue
        data = multipart_body(chunk)
        headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
        if route == "multipart+zstd":
            data = zstandard.ZstdCompressor(level=1).compress(data)
            headers["Content-Encoding"] = "zstd"
        made.append(("/runs/multipart", data, headers))
    return made


def send_all(
    url: str, key: str, requests: list[tuple[str, bytes, dict[str, str]]], senders: int
) -> float:
    """Seconds from the first request to the last answer, ``senders`` threads at once."""
    queue = list(reversed(requests))
    lock = threading.Lock()
    failures: list[str] = []

    def sender() -> None:
        with httpx.Client(base_url=url, headers={"X-Api-Key": key}, timeout=60) as http:
            while True:
                with lock:
                    if not queue:
                        return
                    path, body, headers = queue.pop()
                answer = http.post(path, content=body, headers=headers)
                if answer.status_code != 202:
                    failures.append(f"{answer.status_code} {answer.text[:200]}")

    threads = [threading.Thread(target=sender) for _ in range(senders)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    check(not failures, f"the collector refused requests: {failures[:3]}")
    return elapsed


def serve(folder: Path) -> tuple[subprocess.Popen[str], str, str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "traces",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    check(url.startswith("http://"), f"traces serve printed no URL: {url!r}")
    return process, url, (folder / "api-key").read_text().strip()


def check_stored(folder: Path, traces: int) -> None:
    db = sqlite3.connect(folder / "traces.sqlite3")
    try:
        (runs, merged, models) = db.execute(
            "SELECT COUNT(*), SUM(end_time IS NOT NULL AND name IS NOT NULL),"
            " SUM(run_type = 'llm' AND input_tokens = 812) FROM runs"
        ).fetchone()
    finally:
        db.close()
    check(runs == traces * 3, f"{runs} runs stored of {traces * 3}")
    check(merged == runs, f"{runs - merged} runs lack their post or their patch")
    check(models == traces, f"{models} model calls with their tokens of {traces}")


def time_thread_calls(calls: int) -> float:
    """Median seconds to list the calls of one thread holding ``calls`` calls."""
    import statistics

    from agent_tui.traces.calls import list_calls
    from agent_tui.traces.store import TraceStore

    with tempfile.TemporaryDirectory(prefix="trace-calls-") as temporary:
        store = TraceStore(Path(temporary) / "traces.sqlite3")
        try:
            operations = [op for number in range(calls // 2) for op in agent_trace(number)]
            for _, run in operations:
                run["extra"]["metadata"]["thread_id"] = "one-thread"
            for start in range(0, len(operations), 2000):
                store.ingest(operations[start : start + 2000])  # type: ignore[arg-type]
            times = []
            for _ in range(5):
                started = time.perf_counter()
                listed = list_calls(store, thread_id="one-thread")
                times.append(time.perf_counter() - started)
        finally:
            store.close()
    check(len(listed) == calls, f"{len(listed)} calls listed of {calls}")
    check(
        [c.run_type for c in listed[:2]] == ["llm", "tool"],
        "the calls of a trace are not in their order",
    )
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=5000, help="traces a route (3 runs each)")
    parser.add_argument("--senders", type=int, default=4)
    parser.add_argument("--thread-calls", type=int, default=5000)
    add_options(parser, quick=120, full=1800)
    args = parser.parse_args()
    arm(args)
    traces = QUICK_TRACES if args.quick else args.traces
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {traces:,} traces "
        f"({traces * 3:,} runs) a route, {RUNS_PER_REQUEST} runs a request, "
        f"{args.senders} senders"
    )
    print(f"{'route':<16} {'MB sent':>8} {'seconds':>8} {'runs/s':>8}")
    slowest = float("inf")
    for route in ("multipart+zstd", "multipart", "batch"):
        requests = requests_for(route, traces)
        size = sum(len(body) for _, body, _ in requests) / 1e6
        with tempfile.TemporaryDirectory(prefix="trace-ingest-") as temporary:
            folder = Path(temporary)
            process, url, key = serve(folder)
            try:
                # One trace first, untimed: the collector's first request imports what
                # it reads with (zstd, the parsers) and opens the store.
                send_all(url, key, requests_for(route, 1), 1)
                elapsed = send_all(url, key, requests, args.senders)
            finally:
                process.terminate()
                process.wait(20)
            check_stored(folder, traces + 1)
        rate = traces * 3 / elapsed
        slowest = min(slowest, rate)
        print(f"{route:<16} {size:>8.1f} {elapsed:>8.2f} {rate:>8,.0f}")
    check(
        slowest >= TARGET_RUNS_PER_SECOND,
        f"the slowest route stored {slowest:,.0f} runs/s (target {TARGET_RUNS_PER_SECOND})",
    )
    thread_calls = 1000 if args.quick else args.thread_calls
    listing = time_thread_calls(thread_calls)
    print(f"\nthe calls of a thread of {thread_calls:,} calls listed in {listing * 1000:.0f} ms")
    check(listing <= 0.2, f"listing {thread_calls} calls took {listing * 1000:.0f} ms (> 200)")
    print(
        f"checked: every run stored whole on every route; slowest {slowest:,.0f} runs/s "
        f"(target {TARGET_RUNS_PER_SECOND}); a thread's calls listed in order, in time"
    )


if __name__ == "__main__":
    main()
