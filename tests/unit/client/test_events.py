"""Typed run events from server-sent events: kinds, namespaces, and never losing data."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from agent_tui.client.events import (
    CheckpointsEvent,
    CustomEvent,
    DebugEvent,
    EndEvent,
    ErrorEvent,
    EventsEvent,
    MessageListEvent,
    MessagesEvent,
    MessagesMetadataEvent,
    MetadataEvent,
    RunEvent,
    TasksEvent,
    UnknownEvent,
    UpdatesEvent,
    ValuesEvent,
    parse_run_event,
)
from agent_tui.client.sse import ServerSentEvent, aiter_sse


def parse(
    name: str, data: Any = None, *, raw: str | None = None, id: str | None = None
) -> RunEvent:
    text = raw if raw is not None else ("" if data is None else json.dumps(data))
    return parse_run_event(ServerSentEvent(event=name, data=text, id=id))


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("metadata", MetadataEvent),
        ("values", ValuesEvent),
        ("updates", UpdatesEvent),
        ("messages", MessagesEvent),
        ("messages/partial", MessageListEvent),
        ("messages/complete", MessageListEvent),
        ("messages/metadata", MessagesMetadataEvent),
        ("custom", CustomEvent),
        ("debug", DebugEvent),
        ("tasks", TasksEvent),
        ("checkpoints", CheckpointsEvent),
        ("events", EventsEvent),
        ("error", ErrorEvent),
        ("end", EndEvent),
        ("feedback", UnknownEvent),
        ("message", UnknownEvent),
    ],
)
def test_event_kinds(name: str, kind: type) -> None:
    event = parse(name, {"k": [1, "é"]}, id="12")
    assert type(event) is kind
    assert event.event == name
    assert event.raw_event == name
    assert event.namespace == ()
    assert event.data == {"k": [1, "é"]}
    assert event.id == "12"


def test_subgraph_namespace() -> None:
    event = parse("updates|parent:1f0-aa|child:2b1", {"tools": None})
    assert isinstance(event, UpdatesEvent)
    assert event.event == "updates"
    assert event.namespace == ("parent:1f0-aa", "child:2b1")
    assert event.raw_event == "updates|parent:1f0-aa|child:2b1"


def test_subgraph_namespace_on_an_unknown_mode() -> None:
    event = parse("lifecycle|sub:1", [1])
    assert isinstance(event, UnknownEvent)
    assert (event.event, event.namespace, event.data) == ("lifecycle", ("sub:1",), [1])


def test_metadata() -> None:
    event = parse("metadata", {"run_id": "1f0a-run", "attempt": 2})
    assert isinstance(event, MetadataEvent)
    assert (event.run_id, event.attempt) == ("1f0a-run", 2)
    odd = parse("metadata", ["not", "a", "dict"])
    assert isinstance(odd, MetadataEvent)
    assert (odd.run_id, odd.attempt) == (None, None)


def test_updates_keep_nodes_that_wrote_nothing() -> None:
    event = parse("updates", {"agent": {"messages": [{"content": "hi"}]}, "noop": None})
    assert isinstance(event, UpdatesEvent)
    assert event.updates == {"agent": {"messages": [{"content": "hi"}]}, "noop": None}
    assert event.interrupts == []


def test_updates_interrupt() -> None:
    interrupt = {"value": {"question": "Approve?"}, "id": "a1b2"}
    event = parse("updates", {"__interrupt__": [interrupt]})
    assert isinstance(event, UpdatesEvent)
    assert event.interrupts == [interrupt]


def test_values_carry_an_interrupt_when_updates_were_not_asked_for() -> None:
    event = parse("values", {"__interrupt__": [{"value": "ok?", "id": "x"}]})
    assert isinstance(event, ValuesEvent)
    assert event.interrupts == [{"value": "ok?", "id": "x"}]
    assert parse("values", {"messages": []}).values == {"messages": []}  # type: ignore[union-attr]


def test_messages_tuple() -> None:
    chunk = {"type": "AIMessageChunk", "content": "Hel", "id": "run-1"}
    meta = {"langgraph_node": "agent", "langgraph_step": 1}
    event = parse("messages", [chunk, meta])
    assert isinstance(event, MessagesEvent)
    assert event.chunk == chunk
    assert event.metadata == meta
    assert event.node == "agent"
    assert event.text == "Hel"


def test_messages_with_content_blocks() -> None:
    chunk = {
        "content": [
            {"type": "text", "text": "Hello"},
            {"type": "tool_use", "id": "t1", "input": {}},
            {"type": "text", "text": ", world"},
            "!",
        ]
    }
    event = parse("messages|sub:9", [chunk, {}])
    assert isinstance(event, MessagesEvent)
    assert event.text == "Hello, world!"
    assert event.node is None
    assert event.namespace == ("sub:9",)


def test_messages_with_an_unexpected_shape_keep_the_data() -> None:
    event = parse("messages", {"event": "content-block-delta"})
    assert isinstance(event, MessagesEvent)
    assert (event.chunk, event.metadata, event.text) == ({}, {}, "")
    assert event.data == {"event": "content-block-delta"}


def test_messages_stream_mode() -> None:
    partial = parse("messages/partial", [{"id": "m1", "content": "Hi th", "type": "ai"}])
    assert isinstance(partial, MessageListEvent)
    assert partial.complete is False
    assert partial.text == "Hi th"
    complete = parse("messages/complete", [{"id": "m1", "content": "Hi there"}])
    assert isinstance(complete, MessageListEvent)
    assert complete.complete is True
    assert complete.messages == [{"id": "m1", "content": "Hi there"}]
    meta = parse("messages/metadata", {"m1": {"metadata": {"langgraph_node": "agent"}}})
    assert isinstance(meta, MessagesMetadataEvent)
    assert meta.data == {"m1": {"metadata": {"langgraph_node": "agent"}}}


def test_error() -> None:
    event = parse("error", {"error": "GraphRecursionError", "message": "Recursion limit of 25"})
    assert isinstance(event, ErrorEvent)
    assert (event.error, event.message) == ("GraphRecursionError", "Recursion limit of 25")


def test_error_as_plain_text_keeps_the_text() -> None:
    event = parse("error", raw="Internal Server Error")
    assert isinstance(event, ErrorEvent)
    assert event.data == "Internal Server Error"
    assert (event.error, event.message) == ("Error", "Internal Server Error")


def test_end_without_data() -> None:
    event = parse("end")
    assert isinstance(event, EndEvent)
    assert event.data is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("not json", "not json"),
        ("{truncated", "{truncated"),
        ("", None),
        ("null", None),
        ('"text"', "text"),
        ("12345678901234567890123", 12345678901234567890123),
        ('"\\ud800"', "\ud800"),  # a lone surrogate: valid JSON, rejected by some parsers
        ("[" * 300 + "]" * 300, json.loads("[" * 300 + "]" * 300)),
        ("[" * 100_000, "[" * 100_000),  # deeper than any parser goes: kept as text
    ],
)
def test_data_is_never_dropped(raw: str, expected: Any) -> None:
    assert parse("custom", raw=raw).data == expected


def test_long_non_ascii_data() -> None:
    value = {"messages": [{"content": "日本語のテキスト " * 500}]}
    assert parse("values", value).data == value


def test_events_are_frozen() -> None:
    event = parse("end")
    with pytest.raises(AttributeError):
        event.data = 1  # type: ignore[misc]


STREAM = (
    b": heartbeat\r\n\r\n"
    b'event: metadata\r\ndata: {"run_id":"1f0a","attempt":1}\r\nid: 1\r\n\r\n'
    b'event: updates\r\ndata: {"agent":{"messages":[]},"noop":null}\r\nid: 2\r\n\r\n'
    b'event: messages\r\ndata: [{"content":"Hel","type":"AIMessageChunk"},'
    b'{"langgraph_node":"agent"}]\r\nid: 3\r\n\r\n'
    b": heartbeat\r\n\r\n"
    b'event: messages|tools:7c1\r\ndata: [{"content":[{"type":"text","text":"l\xc3\xb6"}]},'
    b'{"langgraph_node":"tools"}]\r\nid: 4\r\n\r\n'
    b'event: values\r\ndata: {"messages":[{"content":"Hell\xc3\xb6"}]}\r\nid: 5\r\n\r\n'
    b'event: error\r\ndata: {"error":"ValueError","message":"boom"}\r\nid: 6\r\n\r\n'
    b"event: end\r\n\r\n"
)


async def _chunks(size: int) -> AsyncIterator[bytes]:
    for i in range(0, len(STREAM), size):
        yield STREAM[i : i + size]


@pytest.mark.parametrize("size", [1, 5, len(STREAM)])
async def test_recorded_stream(size: int) -> None:
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=_chunks(size)
    )
    events = [parse_run_event(sse) async for sse in aiter_sse(response)]
    assert [(type(e).__name__, e.event, e.namespace, e.id) for e in events] == [
        ("MetadataEvent", "metadata", (), "1"),
        ("UpdatesEvent", "updates", (), "2"),
        ("MessagesEvent", "messages", (), "3"),
        ("MessagesEvent", "messages", ("tools:7c1",), "4"),
        ("ValuesEvent", "values", (), "5"),
        ("ErrorEvent", "error", (), "6"),
        # The id is the stream's last event ID (what a rejoin would send), so `end`,
        # which has no `id:` line, carries the one before it.
        ("EndEvent", "end", (), "6"),
    ]
    metadata, updates, first, second, values, error, end = events
    assert isinstance(metadata, MetadataEvent) and metadata.run_id == "1f0a"
    assert isinstance(updates, UpdatesEvent) and updates.updates["noop"] is None
    assert isinstance(first, MessagesEvent) and isinstance(second, MessagesEvent)
    assert first.text + second.text == "Hellö"
    assert (first.node, second.node) == ("agent", "tools")
    assert isinstance(values, ValuesEvent)
    assert values.values == {"messages": [{"content": "Hellö"}]}
    assert isinstance(error, ErrorEvent) and (error.error, error.message) == ("ValueError", "boom")
    assert isinstance(end, EndEvent) and end.data is None
