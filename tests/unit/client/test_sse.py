"""Server-sent events as the run stream reads them (httpx-sse's EventSource behind our
guards), fed whole, byte by byte and in random chunks."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from agent_tui.client import AgentServerClient
from agent_tui.client.errors import UnexpectedBody
from agent_tui.client.events import RunEvent
from agent_tui.client.sse import EventBounds, ServerSentEvent, SSEError, aiter_sse

Event = tuple[str, str, str]  # name, data, the stream's last event ID


def E(event: str = "message", data: str = "", id: str = "") -> Event:
    return (event, data, id)


def chunkings(stream: bytes) -> Iterator[tuple[str, list[bytes]]]:
    """The same bytes cut every way that has ever broken a decoder."""
    yield "whole", [stream]
    yield "bytes", [stream[i : i + 1] for i in range(len(stream))]
    for seed in range(8):
        rng = random.Random(seed)
        chunks, i = [], 0
        while i < len(stream):
            size = rng.randint(1, 9)
            chunks.append(stream[i : i + size])
            i += size
        yield f"random{seed}", chunks
    if len(stream) <= 400:
        for cut in range(1, len(stream)):
            yield f"cut{cut}", [stream[:cut], stream[cut:]]


def sse_response(chunks: list[bytes], content_type: str = "text/event-stream") -> httpx.Response:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return httpx.Response(200, headers={"content-type": content_type}, content=body())


async def read(chunks: list[bytes], bounds: EventBounds | None = None) -> list[ServerSentEvent]:
    return [sse async for sse in aiter_sse(sse_response(chunks), bounds=bounds)]


async def decode(chunks: list[bytes]) -> list[Event]:
    return [(sse.event, sse.data, sse.id) for sse in await read(chunks)]


async def assert_decodes(stream: bytes, expected: list[Event]) -> None:
    for name, chunks in chunkings(stream):
        assert await decode(chunks) == expected, name


CASES: dict[str, tuple[bytes, list[Event]]] = {
    "lf": (b"data: a\n\n", [E(data="a")]),
    "cr": (b"data: a\r\r", [E(data="a")]),
    "crlf": (b"data: a\r\n\r\n", [E(data="a")]),
    "mixed line ends": (
        b"event: x\rdata: 1\r\n\ndata: 2\n\r\n",
        [E("x", "1"), E(data="2")],
    ),
    # A CRLF is one line end: the LF after a CR must not become an empty line that
    # dispatches `a` on its own.
    "crlf is one line end": (b"data: a\r\ndata: b\r\n\r\n", [E(data="a\nb")]),
    "cr then lf then cr": (b"data: a\r\n\rdata: b\r\r", [E(data="a"), E(data="b")]),
    "multi-line data": (b"data: a\ndata:\ndata: b\n\n", [E(data="a\n\nb")]),
    "one leading space stripped": (b"data:  a \ndata:b\n\n", [E(data=" a \nb")]),
    "field without colon": (b"data\ndata\n\n", [E(data="\n")]),
    "comments ignored": (b": heartbeat\n\n:\n:data: x\n\ndata: y\n\n", [E(data="y")]),
    "unknown fields ignored": (b"foo: bar\nDATA: no\nData: no\ndata: x\n\n", [E(data="x")]),
    "default event name": (b"event:\ndata: x\n\nevent: \ndata: y\n\n", [E(data="x"), E(data="y")]),
    "event name resets after dispatch": (
        b"event: a\ndata: 1\n\ndata: 2\n\n",
        [E("a", "1"), E(data="2")],
    ),
    "later field wins": (b"event: a\nevent: b\ndata: x\n\n", [E("b", "x")]),
    "blank lines alone dispatch nothing": (b"\n\n\r\n\r\r\n", []),
    "utf-8 split anywhere": (
        "data: héllo 日本 😀\n\n".encode(),
        [E(data="héllo 日本 😀")],
    ),
    "invalid utf-8 replaced": (b"data: a\xff\xfeb\n\n", [E(data="a\ufffd\ufffdb")]),
    # Only CR and LF end lines: not VT, FF, FS, NEL or U+2028.
    "only cr and lf end lines": (
        "data: a\x0bb\x0cc\x1cd\x85e\u2028f\u2029g\n\n".encode(),
        [E(data="a\x0bb\x0cc\x1cd\x85e\u2028f\u2029g")],
    ),
    # httpx-sse keeps a BOM; without our stripping the first field would be lost.
    "bom stripped at start": (b"\xef\xbb\xbfdata: a\n\n", [E(data="a")]),
    # Only one BOM is stripped: a second one is part of the field name, so the line is
    # an unknown field.
    "second bom kept": (b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n", [E(data="b")]),
    "bom prefix that is not a bom": (b"\xefdata: a\n\n", []),
    "bom bytes later are data": (b"data: \xef\xbb\xbfa\n\n", [E(data="\ufeffa")]),
    # `id` is the stream's last event ID: what a rejoin sends as Last-Event-ID.
    "last id persists": (
        b"id: 7\ndata: a\n\ndata: b\n\n",
        [E(data="a", id="7"), E(data="b", id="7")],
    ),
    "empty id": (b"id: 1\ndata: a\n\nid:\ndata: b\n\n", [E(data="a", id="1"), E(data="b")]),
    "id with nul ignored": (
        b"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n",
        [E(data="a", id="1"), E(data="b", id="1")],
    ),
    "event without data": (b"event: end\n\n", [E("end", "")]),
    "event with empty data": (b"event: end\ndata:\n\n", [E("end", "")]),
    "id or retry alone dispatch nothing": (b"id: 3\n\nretry: 10\n\n", []),
    # httpx-sse 0.4.3 dispatches an empty `message` per blank line once an id was seen.
    "heartbeats after an id dispatch nothing": (
        b"id: 1\ndata: a\n\n: heartbeat\n\n: heartbeat\r\n\r\ndata: b\n\n",
        [E(data="a", id="1"), E(data="b", id="1")],
    ),
    "incomplete event discarded": (b"data: a\n\ndata: b\n", [E(data="a")]),
    "unterminated line discarded": (b"data: a\n\ndata: b", [E(data="a")]),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_decoding(name: str) -> None:
    stream, expected = CASES[name]
    await assert_decodes(stream, expected)


async def test_a_long_line_in_many_chunks() -> None:
    payload = ("x" * 1000 + "é") * 1000
    stream = b"data: " + payload.encode() + b"\n\n"
    chunks = [stream[i : i + 1000] for i in range(0, len(stream), 1000)]
    assert await decode(chunks) == [E(data=payload)]


async def test_an_event_ending_a_read_with_a_cr_is_not_held_back_until_the_next_read() -> None:
    # httpx-sse waits for the next read to see whether a LF follows the CR: with a
    # server that ends lines with CR alone, each event would wait for the next heartbeat.
    received: list[str] = []
    seen_before_next_read: list[list[str]] = []

    async def body() -> AsyncIterator[bytes]:
        yield b"data: a\r\r"
        seen_before_next_read.append(list(received))
        yield b"\ndata: b\r\n\r\n"

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())
    async for sse in aiter_sse(response):
        received.append(sse.data)
    assert seen_before_next_read == [["a"]]
    assert received == ["a", "b"]


async def test_a_response_that_is_not_an_event_stream_is_refused() -> None:
    response = sse_response([b'{"detail": "login first"}'], content_type="application/json")
    with pytest.raises(SSEError, match="text/event-stream"):
        [sse async for sse in aiter_sse(response)]


# What `langgraph-api` 0.16.7 writes: CRLF everywhere, `: heartbeat` comments between
# events, `id:` only on resumable runs, subgraph modes as `mode|ns`.
LANGGRAPH_STREAM = (
    b": heartbeat\r\n\r\n"
    b'event: metadata\r\ndata: {"run_id":"1f0a","attempt":1}\r\nid: 1\r\n\r\n'
    b'event: updates\r\ndata: {"agent":{"messages":[]}}\r\nid: 2\r\n\r\n'
    b'event: messages\r\ndata: [{"content":"Hel","type":"AIMessageChunk"},'
    b'{"langgraph_node":"agent"}]\r\nid: 3\r\n\r\n'
    b": heartbeat\r\n\r\n"
    b'event: messages|tools:7c1\r\ndata: [{"content":"l\xc3\xb6","type":"AIMessageChunk"},'
    b'{"langgraph_node":"agent"}]\r\nid: 4\r\n\r\n'
    b": heartbeat\r\n\r\n"
    b'event: values\r\ndata: {"messages":[{"content":"Hell\xc3\xb6"}]}\r\nid: 5\r\n\r\n'
    b'event: error\r\ndata: {"error":"ValueError","message":"boom"}\r\nid: 6\r\n\r\n'
    b"event: end\r\n\r\n"
)

LANGGRAPH_EVENTS = [
    E("metadata", '{"run_id":"1f0a","attempt":1}', "1"),
    E("updates", '{"agent":{"messages":[]}}', "2"),
    E("messages", '[{"content":"Hel","type":"AIMessageChunk"},{"langgraph_node":"agent"}]', "3"),
    E(
        "messages|tools:7c1",
        '[{"content":"lö","type":"AIMessageChunk"},{"langgraph_node":"agent"}]',
        "4",
    ),
    E("values", '{"messages":[{"content":"Hellö"}]}', "5"),
    E("error", '{"error":"ValueError","message":"boom"}', "6"),
    E("end", "", "6"),
]


async def test_recorded_langgraph_stream() -> None:
    await assert_decodes(LANGGRAPH_STREAM, LANGGRAPH_EVENTS)
    await assert_decodes(b"\xef\xbb\xbf" + LANGGRAPH_STREAM, LANGGRAPH_EVENTS)
    await assert_decodes(LANGGRAPH_STREAM.replace(b"\r\n", b"\n"), LANGGRAPH_EVENTS)
    await assert_decodes(LANGGRAPH_STREAM.replace(b"\r\n", b"\r"), LANGGRAPH_EVENTS)


# ---------------------------------------------------------------- through a run stream


def run_server(body: bytes, seen: list[httpx.Request]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        headers = {"content-type": "text/event-stream", "content-location": "/threads/t/runs/r1"}
        return httpx.Response(200, content=body, headers=headers)

    return httpx.MockTransport(answer)


async def stream_events(body: bytes, **join: Any) -> tuple[list[RunEvent], list[httpx.Request]]:
    seen: list[httpx.Request] = []
    transport = run_server(body, seen)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        if join:
            stream = client.runs.join_stream("t", "r1", **join)
        else:
            stream = client.runs.stream("t", "chat", input={})
        async with stream as run:
            events = [event async for event in run]
        assert run.ended
    return events, seen


async def test_heartbeats_after_an_id_are_not_run_events_and_keep_the_resume_point() -> None:
    events, _ = await stream_events(LANGGRAPH_STREAM)
    assert [e.raw_event for e in events] == [
        "metadata",
        "updates",
        "messages",
        "messages|tools:7c1",
        "values",
        "error",
        "end",
    ]
    assert [e.namespace for e in events][3] == ("tools:7c1",)
    assert [e.id for e in events] == ["1", "2", "3", "4", "5", "6", "6"]


async def test_a_run_stream_starting_with_a_bom_loses_no_event() -> None:
    events, _ = await stream_events(b"\xef\xbb\xbf" + LANGGRAPH_STREAM)
    assert events[0].event == "metadata" and events[0].data == {"run_id": "1f0a", "attempt": 1}


async def test_a_rejoin_sends_the_last_event_id_and_asks_for_an_event_stream() -> None:
    _, [request] = await stream_events(LANGGRAPH_STREAM, last_event_id="3")
    assert request.headers["last-event-id"] == "3"
    assert request.headers["accept"] == "text/event-stream"


async def test_a_run_answered_with_something_else_than_events_is_an_unexpected_body() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>sign in</html>")

    transport = httpx.MockTransport(answer)
    async with (
        AgentServerClient("http://server.test", http_transport=transport) as client,
        client.runs.stream("t", "chat", input={}) as run,
    ):
        with pytest.raises(UnexpectedBody, match="expected an event stream, got text/plain"):
            [event async for event in run]


# ---------------------------------------------------------------- bounds, any shape


def random_stream(rng: random.Random, limit: int) -> tuple[bytes, list[tuple[str, str]], int]:
    """Events with random line ends, heartbeats and ids, some far over `limit`; the
    stream, the events that fit, and how many do not."""
    parts, kept, too_large = ["\ufeff"] if rng.random() < 0.3 else [], [], 0
    for n in range(rng.randint(1, 12)):
        end = rng.choice(["\n", "\r", "\r\n"])
        if rng.random() < 0.3:
            parts.append(": heartbeat" + end + end)
        large = rng.random() < 0.3
        data = [
            "x" * rng.randint(limit + 100, 5 * limit) if large else "é" * rng.randint(0, 20)
            for _ in range(rng.randint(1, 4))
        ]
        lines = [f"event: e{n}", *(f"data: {d}" for d in data)]
        if rng.random() < 0.5:
            lines.insert(rng.randint(0, len(lines)), f"id: {n}")
        parts.append(end.join(lines) + end + end)
        if large:
            too_large += 1
        else:
            kept.append((f"e{n}", "\n".join(data)))
    return "".join(parts).encode(), kept, too_large


@pytest.mark.parametrize("seed", range(40))
async def test_only_the_events_over_the_limit_are_skipped_however_the_stream_is_cut(
    seed: int,
) -> None:
    rng = random.Random(seed)
    stream, kept, too_large = random_stream(rng, limit=300)
    cuts = [rng.randint(1, 700) for _ in range(len(stream))]
    pieces, i = [], 0
    for size in cuts:
        if i >= len(stream):
            break
        pieces.append(stream[i : i + size])
        i += size
    for chunks in ([stream], [stream[i : i + 1] for i in range(len(stream))], pieces):
        bounds = EventBounds(max_event_bytes=300)
        assert [(e.event, e.data) for e in await read(chunks, bounds)] == kept
        assert bounds.skipped == too_large


@pytest.mark.parametrize(
    ("pieces", "unfinished"),
    [
        (["event: values\r\ndata: {}\r\n\r\n"], False),
        (["event: values\r\ndata: {}\r\n\r\n", ": heartbeat\r\n\r\n"], False),
        (["event: values\r\ndata: {}\r\n\r\nevent: val"], True),
        (["event: values\r\nda", "ta: {}\r\n"], True),
        (["event: values\r\ndata: {}\r", "\n\r\n"], False),
        (["event: values\r\ndata: {}\r\n\r\n", "\r\n"], False),
    ],
)
def test_bounds_know_whether_the_stream_stops_inside_an_event(
    pieces: list[str], unfinished: bool
) -> None:
    # A stream that ends inside an event was cut: the run stream rejoins for the rest.
    bounds = EventBounds()
    for piece in pieces:
        bounds.feed(piece)
    assert bounds.unfinished is unfinished
