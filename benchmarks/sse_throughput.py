"""SSE throughput: our run stream's SSE against httpx-sse and langgraph-sdk, end to end over loopback HTTP.

    uv run python benchmarks/sse_throughput.py [--events 10000] [--reps 9] [--before REV]
    uv run python benchmarks/sse_throughput.py --quick   # 1,000 events, 3 rounds (seconds)

One recorded-looking LangGraph run stream (metadata, thousands of `messages` token events,
some `updates`, large `values` snapshots, heartbeats, ids, `end`) is served by a tiny HTTP
server on 127.0.0.1 (a free port, in a thread) and read with httpx by each parser in turn:

- ours:        agent_tui.client.sse.aiter_sse(response): httpx-sse's EventSource behind
               our bounds, BOM stripping and heartbeat filter
- httpx-sse:   aconnect_sse(...) / EventSource.aiter_sse(), bare
- langgraph-sdk: langgraph_sdk.sse.aiter_lines_raw + SSEDecoder, as the SDK's own
                 stream loop does it (this decoder also parses each event's JSON)
- before (REV), with `--before REV`: the hand-written bytes decoder that client/sse.py
               held at commit REV (read with `git show`), as it was used then
- ours + typed: aiter_sse + parse_run_event (JSON included), for information
- run stream:  what the chat reads: `RunStream` on a `Transport` (each read under the
               stall deadline), typed events, for information

Two serving shapes: one HTTP chunk per event (what langgraph-api does over uvicorn) and
one Content-Length body (reads as large as the socket gives). The parsers run
interleaved, in a rotating order, repeatedly; the table shows the best and the median
run. A second table times the decoders alone on the same chunks, without HTTP, and a
third the JSON parsers on every event's data.

Checked first (exit status 1 if not): every parser sees the same events with the same data,
as many as were sent.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import types
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, cast

import httpx
import orjson
import pydantic_core
from httpx_sse import aconnect_sse
from httpx_sse._decoders import SSEDecoder as HttpxSSEDecoder
from httpx_sse._decoders import SSELineDecoder as HttpxSSELineDecoder
from langgraph_sdk.sse import BytesLineDecoder, aiter_lines_raw
from langgraph_sdk.sse import SSEDecoder as SdkSSEDecoder

from agent_tui.client.events import _parse_json, parse_run_event
from agent_tui.client.runs import RunStream
from agent_tui.client.sse import OVERSIZED, EventBounds, aiter_sse
from agent_tui.client.transport import Transport
from benchkit import add_options, arm, check

# --------------------------------------------------------------------------- the stream

QUICK_EVENTS = 1_000
QUICK_REPS = 3

WORDS = ["The", " graph", " runs", " each", " node", ",", " then", " streams", " tokens", "."]
NON_ASCII = [" café", " naïve", " 日本語", " данные", " 🙂"]


def sse_frame(event: str, data: Any, event_id: int | None) -> bytes:
    """Exactly what langgraph-api's json_to_sse writes (CRLF, `id:` after `data:`)."""
    frame = b"event: " + event.encode() + b"\r\ndata: " + orjson.dumps(data) + b"\r\n"
    if event_id is not None:
        frame += b"id: " + str(event_id).encode() + b"\r\n"
    return frame + b"\r\n"


def build_stream(n_events: int, seed: int = 7) -> list[bytes]:
    """A resumable run that streams mostly tokens; one bytes object per server write."""
    rng = random.Random(seed)
    run_id = "1f0c2a4e-7b8d-6f10-9a1b-2c3d4e5f6a7b"
    thread_id = "0b9c8d7e-6f5a-4b3c-2d1e-0f9a8b7c6d5e"
    metadata = {
        "langgraph_step": 1,
        "langgraph_node": "agent",
        "langgraph_triggers": ["branch:to:agent"],
        "langgraph_path": ["__pregel_pull", "agent"],
        "langgraph_checkpoint_ns": "agent:5e1a6b2c-0d3f-4e5a-8b9c-1d2e3f4a5b6c",
        "checkpoint_ns": "agent:5e1a6b2c-0d3f-4e5a-8b9c-1d2e3f4a5b6c",
        "ls_provider": "openai",
        "ls_model_name": "gpt-4o-mini",
        "ls_model_type": "chat",
        "ls_temperature": 0.0,
        "thread_id": thread_id,
        "run_id": run_id,
        "assistant_id": "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
        "graph_id": "agent",
        "run_attempt": 1,
        "langgraph_version": "1.0.3",
        "langgraph_api_version": "0.16.7",
    }
    frames = [sse_frame("metadata", {"run_id": run_id, "attempt": 1}, 0)]
    history: list[dict[str, Any]] = [{"type": "human", "content": "Explain the graph.", "id": "h0"}]
    # Retrieved documents make the state snapshots large, as in a typical RAG agent.
    documents = [
        {
            "id": f"doc-{d}",
            "metadata": {"source": f"https://example.com/docs/{d}", "score": 0.9 - d / 100},
            "page_content": " ".join(rng.choice(WORDS + NON_ASCII).strip() for _ in range(400)),
        }
        for d in range(12)
    ]
    answer: list[str] = []
    for i in range(1, n_events - 1):
        if i % 500 == 0:
            frames.append(b": heartbeat\r\n\r\n")
        if i % 250 == 0:
            history.append({"type": "ai", "content": "".join(answer), "id": f"ai{i}"})
            answer = []
            state = {"messages": history, "documents": documents, "step": i}
            frames.append(sse_frame("values", state, i))
        elif i % 40 == 0:
            update = {"agent": {"messages": [{"type": "ai", "content": "".join(answer[-30:])}]}}
            frames.append(sse_frame("updates", update, i))
        else:
            token = rng.choice(NON_ASCII) if rng.random() < 0.1 else rng.choice(WORDS)
            answer.append(token)
            chunk: dict[str, Any] = {
                "content": token,
                "additional_kwargs": {},
                "response_metadata": {},
                "type": "AIMessageChunk",
                "name": None,
                "id": f"run--{run_id}",
                "tool_calls": [],
                "invalid_tool_calls": [],
                "usage_metadata": None,
                "tool_call_chunks": [],
            }
            frames.append(sse_frame("messages", [chunk, metadata], i))
    frames.append(b"event: end\r\n\r\n")
    return frames


# --------------------------------------------------------------------------- the server


def chunked_response(frames: list[bytes]) -> bytes:
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
        b"cache-control: no-store\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    body = b"".join(b"%x\r\n%b\r\n" % (len(frame), frame) for frame in frames)
    return head + body + b"0\r\n\r\n"


def fixed_response(frames: list[bytes]) -> bytes:
    body = b"".join(frames)
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
        b"cache-control: no-store\r\ncontent-length: %d\r\n\r\n" % len(body)
    )
    return head + body


class LoopbackServer:
    """Serves prebuilt responses by path; each response goes out in one sendall, which
    releases the GIL, so the server costs the client (nearly) nothing."""

    def __init__(self, responses: dict[str, bytes]) -> None:
        self.responses = {path.encode(): response for path, response in responses.items()}
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buffer = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buffer += data
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                path = head.split(b" ", 2)[1]
                conn.sendall(self.responses[path])


# --------------------------------------------------------------------------- the parsers

# Each parser is an async generator: the timed runs count and drop what it yields (a run
# with ten thousand parsed events kept alive would time the garbage collector instead),
# the agreement check keeps everything.
Parser = Callable[[httpx.AsyncClient, str], AsyncIterator[Any]]


async def read_nothing(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    async with client.stream("GET", path) as response:
        async for chunk in response.aiter_bytes():
            yield chunk


async def read_ours(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    async with client.stream("GET", path) as response:
        async for sse in aiter_sse(response):
            yield sse


async def read_ours_typed(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    async with client.stream("GET", path) as response:
        async for sse in aiter_sse(response):
            yield parse_run_event(sse)


TRANSPORTS: dict[str, Transport] = {}  # one per base URL, as the app has


async def read_run_stream(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    transport = TRANSPORTS[str(client.base_url)]
    async with RunStream(transport, "GET", path, stall_timeout=60.0) as run:
        async for event in run:
            yield event


async def read_httpx_sse(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    async with aconnect_sse(client, "GET", path) as source:
        async for sse in source.aiter_sse():
            yield sse


async def read_langgraph_sdk(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
    # langgraph_sdk/_async/http.py's stream loop, minus reconnects.
    async with client.stream("GET", path) as response:
        decoder = SdkSSEDecoder()
        async for line in aiter_lines_raw(response):
            sse = decoder.decode(line=cast(bytes, line).rstrip(b"\n"))
            if sse is not None and (sse.event or decoder.has_data):
                yield sse
        if (sse := decoder.decode(b"")) and (sse.event or decoder.has_data):
            yield sse


async def collect(events: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in events]


async def drain(events: AsyncIterator[Any]) -> int:
    count = 0
    async for _ in events:
        count += 1
    return count


PARSERS: dict[str, Parser] = {
    "ours": read_ours,
    "httpx-sse": read_httpx_sse,
    "langgraph-sdk": read_langgraph_sdk,
    "ours + typed": read_ours_typed,
    "run stream": read_run_stream,
    "httpx alone": read_nothing,
}
# The typed lines parse JSON and "httpx alone" reads the bytes without parsing (the floor),
# so they are shown for information and left out of the race.
RACE = ["ours", "httpx-sse", "langgraph-sdk"]


def load_before(rev: str) -> Any:
    """client/sse.py as it was at `rev` (the hand-written decoder), as a module."""
    source = subprocess.run(
        ["git", "show", f"{rev}:src/agent_tui/client/sse.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType(f"sse_{rev}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:src/agent_tui/client/sse.py", "exec"), module.__dict__)
    return module


def add_before(rev: str) -> str:
    """Race the decoder of `rev` too; returns its row's name."""
    before = load_before(rev)
    name = f"before ({rev[:7]})"

    async def read_before(client: httpx.AsyncClient, path: str) -> AsyncIterator[Any]:
        async with client.stream("GET", path) as response:
            async for sse in before.aiter_sse(response.aiter_bytes()):
                yield sse

    def decode_before(chunks: list[bytes]) -> int:
        decoder = before.SSEDecoder()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        return count + len(decoder.flush())

    PARSERS[name] = read_before
    RACE.append(name)
    DECODERS[name] = decode_before
    return name


def _json_or_none(text: str) -> Any:
    return json.loads(text) if text else None


def check_agreement(results: dict[str, list[Any]], expected_events: int) -> list[str]:
    """All parsers must see the same events with the same data; returns notes on quirks."""
    notes = []
    ours = [(e.event, e.data) for e in results["ours"]]
    check(len(ours) == expected_events, f"ours: {len(ours)} events, {expected_events} sent")

    # httpx-sse dispatches an empty `message` event for every blank line once an `id:`
    # was seen (its "anything pending?" test includes the persistent last event id), so
    # each heartbeat after the first id comes out as an extra event; ours drops them.
    httpx_sse = [(e.event, e.data) for e in results["httpx-sse"]]
    spurious = [e for e in httpx_sse if e == ("message", "")]
    if spurious:
        notes.append(f"bare httpx-sse yielded {len(spurious)} empty 'message' events (heartbeats)")
    check([e for e in httpx_sse if e != ("message", "")] == ours, "httpx-sse: other events")

    for name in results:
        if name.startswith("before"):
            check([(e.event, e.data) for e in results[name]] == ours, f"{name}: other events")

    sdk = [(e.event, e.data) for e in results["langgraph-sdk"]]
    check(
        sdk == [(event, _json_or_none(data)) for event, data in ours], "langgraph-sdk: other events"
    )

    for name in ("ours + typed", "run stream"):
        typed = [(e.raw_event, e.data) for e in results[name]]
        check(typed == [(e, _json_or_none(data)) for e, data in ours], f"{name}: other events")
    return notes


# --------------------------------------------------------------------------- timing


def summarise(name: str, times: list[float], n_events: int, n_bytes: int, base: float) -> str:
    best, median = min(times), statistics.median(times)
    return (
        f"  {name:<15} {best * 1e3:8.1f} {median * 1e3:8.1f}"
        f" {n_events / best / 1e3:10.0f}k {n_bytes / best / 1e6:8.1f}"
        f" {base / best:8.2f}x"
    )


HEADER = (
    f"  {'parser':<15} {'best ms':>8} {'med ms':>8} {'events/s':>11} {'MB/s':>8} {'vs ours':>9}"
)


async def run_http(frames: list[bytes], reps: int) -> None:
    n_events = sum(1 for f in frames if not f.startswith(b":"))
    n_bytes = sum(len(f) for f in frames)
    server = LoopbackServer(
        {"/chunked": chunked_response(frames), "/fixed": fixed_response(frames)}
    )
    shapes = {
        "/chunked": "one HTTP chunk per event (langgraph-api over uvicorn)",
        "/fixed": "Content-Length body, socket-sized reads",
    }
    base_url = f"http://127.0.0.1:{server.port}"
    TRANSPORTS[base_url] = Transport(base_url)
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        for path, shape in shapes.items():
            results = {
                name: await collect(parser(client, path)) for name, parser in PARSERS.items()
            }
            notes = check_agreement(results, n_events)
            times: dict[str, list[float]] = {name: [] for name in PARSERS}
            names = list(PARSERS)
            for rep in range(reps):
                # Rotate the order so no parser always runs first (or after the same one).
                for name in names[rep % len(names) :] + names[: rep % len(names)]:
                    gc.collect()
                    start = time.perf_counter()
                    await drain(PARSERS[name](client, path))
                    times[name].append(time.perf_counter() - start)
            print(f"\nEnd to end over loopback HTTP — {shape} (best/median of {reps})")
            print(HEADER)
            base = min(times["ours"])
            for name in PARSERS:
                print(summarise(name, times[name], n_events, n_bytes, base))
            best_other = min(min(times[name]) for name in RACE if name != "ours")
            print(f"  ours vs the fastest other: {best_other / base:.2f}x (higher is better)")
            for note in notes:
                print(f"  note: {note}")


def decode_ours(chunks: list[bytes]) -> int:
    # What aiter_sse does without HTTP: text, our bounds, then httpx-sse's decoders.
    text = codecs.getincrementaldecoder("utf-8")("replace")
    bounds = EventBounds()
    lines, decoder, count = HttpxSSELineDecoder(), HttpxSSEDecoder(), 0
    for chunk in chunks:
        piece = bounds.feed(text.decode(chunk))
        if piece:
            for line in lines.decode(piece):
                sse = decoder.decode(line)
                if sse is not None and (sse.data or sse.event != "message"):
                    count += sse.event != OVERSIZED
    for line in lines.flush():
        count += decoder.decode(line) is not None
    return count


def decode_httpx_sse(chunks: list[bytes]) -> int:
    # As EventSource does: httpx's incremental text decoding, then lines, then events.
    text = codecs.getincrementaldecoder("utf-8")("replace")
    lines, decoder, count = HttpxSSELineDecoder(), HttpxSSEDecoder(), 0
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            count += decoder.decode(line) is not None
    for line in lines.flush():
        count += decoder.decode(line) is not None
    return count


def decode_langgraph_sdk(chunks: list[bytes]) -> int:
    lines, decoder, count = BytesLineDecoder(), SdkSSEDecoder(), 0
    for chunk in chunks:
        for line in lines.decode(chunk):
            count += decoder.decode(bytes(line)) is not None
    return count


def run_in_process(frames: list[bytes], reps: int) -> None:
    n_events = sum(1 for f in frames if not f.startswith(b":"))
    blob = b"".join(frames)
    for shape, chunks in {
        "per-event chunks": frames,
        "64 KiB chunks": [blob[i : i + 65536] for i in range(0, len(blob), 65536)],
    }.items():
        times: dict[str, list[float]] = {name: [] for name in DECODERS}
        for rep in range(reps):
            names = list(DECODERS)
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                gc.collect()
                start = time.perf_counter()
                DECODERS[name](chunks)
                times[name].append(time.perf_counter() - start)
        print(f"\nDecoder alone, in process, no HTTP — {shape} (best/median of {reps})")
        print(HEADER)
        base = min(times["ours"])
        for name in DECODERS:
            print(summarise(name, times[name], n_events, len(blob), base))
    print("  (langgraph-sdk's decoder also parses each event's JSON with orjson)")


DECODERS: dict[str, Callable[[list[bytes]], int]] = {
    "ours": decode_ours,
    "httpx-sse": decode_httpx_sse,
    "langgraph-sdk": decode_langgraph_sdk,
}


def run_json(frames: list[bytes], reps: int) -> None:
    decoder = HttpxSSEDecoder()
    lines = HttpxSSELineDecoder().decode(b"".join(frames).decode())
    events = [decoder.decode(line) for line in lines]
    payloads = [e.data for e in events if e is not None and e.data]  # every event's data
    n_bytes = sum(len(p.encode()) for p in payloads)
    parsers: dict[str, Callable[[str], Any]] = {
        "json.loads": json.loads,
        "pydantic_core": pydantic_core.from_json,
        "ours (hybrid)": _parse_json,
        "orjson": orjson.loads,
    }
    small = [p for p in payloads if len(p) < 1024]
    large = [p for p in payloads if len(p) >= 1024]
    print(f"\nJSON: parse every event's data (best of {reps}, ms)")
    print(f"  {'parser':<15} {'all':>8} {'<1 KiB':>8} {'>=1 KiB':>8} {'MB/s':>8}")
    for name, parse in parsers.items():
        row = []
        for group in (payloads, small, large):
            best = float("inf")
            for _ in range(reps):
                start = time.perf_counter()
                for payload in group:
                    parse(payload)
                best = min(best, time.perf_counter() - start)
            row.append(best)
        print(
            f"  {name:<15} {row[0] * 1e3:8.1f} {row[1] * 1e3:8.1f} {row[2] * 1e3:8.1f}"
            f" {n_bytes / row[0] / 1e6:8.1f}"
        )
    print(f"  ({len(small)} payloads under 1 KiB, {len(large)} larger; orjson for reference only)")


def describe(frames: Iterable[bytes]) -> str:
    frames = list(frames)
    counts: dict[str, int] = {}
    for frame in frames:
        name = frame.split(b"\r\n", 1)[0].removeprefix(b"event: ").decode()
        counts[name] = counts.get(name, 0) + 1
    size = sum(len(f) for f in frames)
    mix = ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{size / 1e6:.1f} MB: {mix}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument(
        "--before",
        metavar="REV",
        help="also race the hand-written decoder of client/sse.py at this commit (c40bdd3)",
    )
    add_options(parser, quick=120, full=1800)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.events, args.reps = QUICK_EVENTS, QUICK_REPS
    if args.before:
        add_before(args.before)
    frames = build_stream(args.events)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; httpx {httpx.__version__}")
    print(f"Stream: {describe(frames)}")
    asyncio.run(run_http(frames, args.reps))
    run_in_process(frames, args.reps)
    run_json(frames, args.reps)
    events = sum(1 for frame in frames if not frame.startswith(b":"))
    print(f"\nchecked: every parser saw the same {events:,} events, both serving shapes")


if __name__ == "__main__":
    main()
