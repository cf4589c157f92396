"""The SSE decoder against the WHATWG rules, fed whole, byte by byte and in random chunks."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator

import pytest

from agent_tui.client.sse import ServerSentEvent, SSEDecoder, aiter_sse

E = ServerSentEvent


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
            yield f"cut{cut}", [stream[:cut], b"", stream[cut:]]


def decode(chunks: list[bytes], decoder: SSEDecoder | None = None) -> list[ServerSentEvent]:
    decoder = decoder or SSEDecoder()
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.flush())
    return events


def assert_decodes(stream: bytes, expected: list[ServerSentEvent]) -> None:
    for name, chunks in chunkings(stream):
        assert decode(chunks) == expected, name


CASES: dict[str, tuple[bytes, list[ServerSentEvent]]] = {
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
    "data colon only": (b"data:\n\n", [E(data="")]),
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
    # bytes.splitlines() must split on CR and LF only: not VT, FF, FS, NEL or U+2028.
    "only cr and lf end lines": (
        "data: a\x0bb\x0cc\x1cd\x85e\u2028f\u2029g\n\n".encode(),
        [E(data="a\x0bb\x0cc\x1cd\x85e\u2028f\u2029g")],
    ),
    "bom stripped at start": (b"\xef\xbb\xbfdata: a\n\n", [E(data="a")]),
    # Only one BOM is stripped: a second one is part of the field name, so the line is
    # an unknown field.
    "second bom kept": (b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n", [E(data="b")]),
    "bom prefix that is not a bom": (b"\xefdata: a\n\n", []),
    "bom bytes later are data": (b"data: \xef\xbb\xbfa\n\n", [E(data="\ufeffa")]),
    "id on the event": (b"id: 7\ndata: a\n\ndata: b\n\n", [E(data="a", id="7"), E(data="b")]),
    "empty id": (b"id\ndata: a\n\nid:\ndata: b\n\n", [E(data="a", id=""), E(data="b", id="")]),
    "id with nul ignored": (
        b"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n",
        [E(data="a", id="1"), E(data="b")],
    ),
    "retry": (b"retry: 1500\ndata: a\n\n", [E(data="a", retry=1500)]),
    "bad retry ignored": (
        b"retry: 15a\nretry: +1\nretry: \nretry: 1_0\nretry: -1\nretry:  5\ndata: a\n\n",
        [E(data="a")],
    ),
    "event without data": (b"event: end\n\n", [E("end", "")]),
    "event with empty data": (b"event: end\ndata:\n\n", [E("end", "")]),
    "id or retry alone dispatch nothing": (b"id: 3\n\nretry: 10\n\n", []),
    "incomplete event discarded": (b"data: a\n\ndata: b\n", [E(data="a")]),
    "unterminated line discarded": (b"data: a\n\ndata: b", [E(data="a")]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_decoding(name: str) -> None:
    stream, expected = CASES[name]
    assert_decodes(stream, expected)


def test_last_event_id_persists_and_ignores_bad_ids() -> None:
    decoder = SSEDecoder()
    events = decode([b"id: 1\ndata: a\n\ndata: b\n\nid: x\x00\ndata: c\n\nid: 5\n\n"], decoder)
    assert [e.id for e in events] == ["1", None, None]
    assert decoder.last_event_id == "5"
    decode([b"id:\ndata: d\n\n"], decoder)
    assert decoder.last_event_id == ""


def test_retry_persists_on_the_decoder() -> None:
    decoder = SSEDecoder()
    events = decode([b"retry: 2000\n\ndata: a\n\nretry: x\n\n"], decoder)
    assert events == [E(data="a")]
    assert decoder.retry == 2000


def test_resume_starts_from_the_given_last_event_id() -> None:
    decoder = SSEDecoder(last_event_id="41")
    assert decode([b"data: a\n\n"], decoder) == [E(data="a")]
    assert decoder.last_event_id == "41"


def test_flush_reports_a_truncated_stream() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b'event: values\ndata: {"a": 1}\n') == []
    assert decoder.pending == E("values", '{"a": 1}')
    assert decoder.flush() == []
    assert decoder.truncated is True
    assert decoder.pending is None


def test_flush_can_dispatch_the_incomplete_event() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"id: 9\nevent: values\ndata: 1\ndata: 2")
    assert decoder.flush(dispatch_incomplete=True) == [E("values", "1\n2", "9")]
    assert decoder.truncated is True


def test_flush_after_a_clean_end_is_not_truncated() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\n\r\n: heartbeat\r\n\r\n") == [E(data="a")]
    assert decoder.flush(dispatch_incomplete=True) == []
    assert decoder.truncated is False


def test_comment_alone_at_the_end_is_truncated_only_if_unterminated() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: a\n\n: heartbeat\n")
    decoder.flush()
    assert decoder.truncated is False
    decoder.feed(b"data: a\n\n: heart")
    decoder.flush()
    assert decoder.truncated is True


def test_decoder_is_reusable_for_a_reconnect() -> None:
    decoder = SSEDecoder()
    assert decode([b"id: 1\nretry: 10\ndata: a\n\ndata: cut"], decoder) == [
        E(data="a", id="1", retry=10)
    ]
    # The new stream starts clean (its BOM is stripped again, the cut line is gone)
    # but keeps the reconnect cursor and the reconnection time.
    assert decode([b"\xef\xbb\xbfdata: b\n\n"], decoder) == [E(data="b")]
    assert decoder.last_event_id == "1"
    assert decoder.retry == 10


def test_a_cr_ending_a_chunk_dispatches_without_waiting() -> None:
    # Waiting for the next chunk to see whether a LF follows would hold back an event
    # until the server's next heartbeat.
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\n\r") == [E(data="a")]
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"data: b\r\n\r\n") == [E(data="b")]


def test_a_long_line_in_many_chunks() -> None:
    payload = ("x" * 1000 + "é") * 1000
    stream = b"data: " + payload.encode() + b"\n\n"
    chunks = [stream[i : i + 1000] for i in range(0, len(stream), 1000)]
    assert decode(chunks) == [E(data=payload)]


def test_accepts_bytearray_and_memoryview_friendly_input() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(bytes(bytearray(b"data: a\n\n"))) == [E(data="a")]


def test_event_is_frozen_and_compares_by_value() -> None:
    event = SSEDecoder().feed(b"event: x\ndata: y\nid: 1\nretry: 2\n\n")[0]
    assert event == ServerSentEvent(event="x", data="y", id="1", retry=2)
    assert repr(event) == "ServerSentEvent(event='x', data='y', id='1', retry=2)"
    with pytest.raises(AttributeError):
        event.data = "z"  # type: ignore[misc]
    assert ServerSentEvent() == E("message", "", None, None)


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
    E("end", ""),
]


def test_recorded_langgraph_stream() -> None:
    assert_decodes(LANGGRAPH_STREAM, LANGGRAPH_EVENTS)
    assert_decodes(b"\xef\xbb\xbf" + LANGGRAPH_STREAM, LANGGRAPH_EVENTS)
    lf_only = LANGGRAPH_STREAM.replace(b"\r\n", b"\n")
    assert_decodes(lf_only, LANGGRAPH_EVENTS)
    assert_decodes(LANGGRAPH_STREAM.replace(b"\r\n", b"\r"), LANGGRAPH_EVENTS)


async def _agen(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def test_aiter_sse() -> None:
    decoder = SSEDecoder()
    chunks = [LANGGRAPH_STREAM[i : i + 7] for i in range(0, len(LANGGRAPH_STREAM), 7)]
    events = [event async for event in aiter_sse(_agen(chunks), decoder=decoder)]
    assert events == LANGGRAPH_EVENTS
    assert decoder.last_event_id == "6"
    assert decoder.truncated is False


async def test_aiter_sse_drops_a_cut_off_event() -> None:
    decoder = SSEDecoder()
    events = [e async for e in aiter_sse(_agen([b"data: a\n\ndata: b"]), decoder=decoder)]
    assert events == [E(data="a")]
    assert decoder.truncated is True
