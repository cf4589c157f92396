"""What a run stream can make the client keep is bounded: the SSE decoder's buffers (an
event too large is skipped, and the chat says so), a message that streams without end,
the items one run adds, the replay filter's memory."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx

from agent_tui.chat.driver_events import Received
from agent_tui.chat.event_order import ReplayFilter
from agent_tui.chat.items import AIItem, CustomItem, InterruptItem, NoticeItem
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client import AgentServerClient
from agent_tui.client.events import RunEvent, parse_run_event
from agent_tui.client.sse import MAX_EVENT_BYTES, EventBounds, ServerSentEvent, aiter_sse

MiB = 1 << 20


def event(name: str, data: Any, event_id: str | None = None) -> RunEvent:
    return parse_run_event(ServerSentEvent(event=name, data=json.dumps(data), id=event_id))


def token(text: str) -> RunEvent:
    chunk = {"type": "AIMessageChunk", "id": "ai-1", "content": text}
    return event("messages", [chunk, {"langgraph_node": "agent"}])


async def read(chunks: Iterable[bytes], bounds: EventBounds) -> list[tuple[str, str]]:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())
    return [(sse.event, sse.data) async for sse in aiter_sse(response, bounds=bounds)]


def endless_line_then_endless_event(piece: bytes) -> Iterator[bytes]:
    yield b"data: first\n\n"
    # 64 MiB on one line, in network-sized chunks…
    yield b"data: "
    for _ in range(1024):
        yield piece
    yield b"\n\n"
    # … and 64 MiB of data lines in one event.
    for _ in range(1024):
        yield b"data: " + piece + b"\n"
    yield b"\nevent: end\ndata: last\n\n"


async def test_a_line_or_an_event_that_never_ends_is_skipped_without_keeping_it() -> None:
    bounds = EventBounds(max_event_bytes=MiB)
    tracemalloc.start()
    try:
        events = await read(endless_line_then_endless_event(b"x" * 65536), bounds)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert events == [("message", "first"), ("end", "last")]
    assert bounds.skipped == 2
    assert peak < 8 * MiB


async def test_an_event_over_the_limit_is_skipped_even_when_it_arrives_whole() -> None:
    bounds = EventBounds(max_event_bytes=1000)
    events = await read(
        [
            b"data: " + b"a" * 900 + b"\n\n"  # kept
            b"data: " + b"b" * 600 + b"\ndata: " + b"c" * 600 + b"\n\n"  # 1,200 bytes: skipped
            b"id: 7\ndata: after\n\n"
        ],
        bounds,
    )
    assert [data[:5] for _, data in events] == ["aaaaa", "after"]
    assert bounds.skipped == 1


async def test_events_after_a_skipped_one_in_the_same_read_are_kept() -> None:
    # The oversized event ends mid-read; what follows it in that read is new.
    bounds = EventBounds(max_event_bytes=1000)
    events = await read(
        [
            b"event: values\ndata: " + b"x" * 600,
            b"y" * 600 + b"\r\n\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n",
        ],
        bounds,
    )
    assert events == [("message", "1"), ("message", "2")]
    assert bounds.skipped == 1


def test_a_streaming_message_stops_growing_at_the_limit_and_its_final_text_replaces_it() -> None:
    model = ChatTranscript()
    model.max_streamed_chars = 100
    words = [f"w{n} " for n in range(100)]
    for word in words:
        model.apply(token(word))
    [item] = model.items
    assert isinstance(item, AIItem)
    assert item.text.startswith("w0 w1 w2")
    assert item.text.endswith(
        "more than 100 characters: the rest shows when the message is complete.*"
    )
    assert len(item.text) < 200
    final = {"type": "ai", "id": "ai-1", "content": "".join(words)}
    model.apply(event("updates", {"agent": {"messages": [final]}}))
    assert model.ai_texts() == ["".join(words)]


def test_one_run_adds_a_bounded_number_of_items_but_questions_always_show() -> None:
    model = ChatTranscript()
    model.max_run_items = 10
    model.begin_run()
    for n in range(50):
        model.apply(event("custom", {"n": n}))
    question = {"value": "Go on?", "id": "i-1"}
    model.apply(event("updates", {"__interrupt__": [question]}))
    customs = [item for item in model.items if isinstance(item, CustomItem)]
    assert [item.data for item in customs] == [{"n": n} for n in range(10)]
    assert [item.value for item in model.items if isinstance(item, InterruptItem)] == ["Go on?"]
    [notice] = [item for item in model.items if isinstance(item, NoticeItem)]
    assert "more than 10 transcript items" in notice.text
    assert model.withheld == 40
    # The next run may add its own.
    model.begin_run()
    model.apply(event("custom", {"n": "next"}))
    assert isinstance(model.items[-1], CustomItem) and model.items[-1].data == {"n": "next"}


def test_the_replay_filter_forgets_what_a_stream_without_new_ids_sends() -> None:
    # A broken server that gives every event the same id: what is remembered stays small.
    replay = ReplayFilter()
    tracemalloc.start()
    try:
        for n in range(20_000):
            data = json.dumps({"n": n, "pad": "x" * 1000})
            replay.is_duplicate(
                parse_run_event(ServerSentEvent(event="custom", data=data, id="5-0"))
            )
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size < 4 * MiB


async def test_an_event_too_large_to_keep_is_skipped_and_the_chat_says_so() -> None:
    # A server that sends one event over the size limit (an httpx transport answers: the
    # real server would need a 32 MiB state).
    huge = b"event: values\ndata: " + b"x" * (MAX_EVENT_BYTES + 1) + b"\n\n"
    chunk = {"type": "AIMessageChunk", "id": "ai-1", "content": "after"}
    body = (
        b'event: metadata\ndata: {"run_id": "r1"}\n\n'
        + huge
        + b"event: messages\ndata: "
        + json.dumps([chunk, {"langgraph_node": "agent"}]).encode()
        + b"\n\n"
    )

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            headers = {
                "content-type": "text/event-stream",
                "content-location": "/threads/t/runs/r1",
            }
            return httpx.Response(200, content=body, headers=headers)
        if request.url.path.endswith("/runs/r1"):
            return httpx.Response(200, json={"run_id": "r1", "status": "success"})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle"})

    transport = httpx.MockTransport(answer)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        session = ChatSession(client, "t")
        steps = [step async for step in session.send(RunRequest("chat"), "hi")]
    received = [e.event.raw_event for e, _ in steps if isinstance(e, Received)]
    assert received == ["metadata", "messages"]
    assert session.transcript.ai_texts() == ["after"]
    notes = [item.text for item in session.transcript.items if isinstance(item, NoticeItem)]
    assert notes == ["1 event of this run was too large to keep (over 32 MiB) and skipped."]


async def test_an_id_cut_between_reads_of_a_skipped_event_does_not_become_the_resume_point() -> (
    None
):
    bounds = EventBounds(max_event_bytes=1000)
    chunks = [
        b"id: 5\ndata: a\n\n",
        b"data: " + b"x" * 900 + b"\nid: 12",  # the parser now holds "id: 12" unfinished
        b"34\ndata: " + b"y" * 500,  # over the limit: the event is skipped
        b"\n\nevent: end\n\n",
    ]

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())
    events = [(e.event, e.data, e.id) async for e in aiter_sse(response, bounds=bounds)]
    assert events == [("message", "a", "5"), ("end", "", "5")]
    assert bounds.skipped == 1
