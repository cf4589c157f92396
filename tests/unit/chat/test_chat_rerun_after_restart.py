"""A node the server ran again after a restart mid-run: the rejoined stream brings a second
answer under a new id; when the run ends the transcript shows the thread's messages, not the
first, unfinished answer, and says in words what happened (issue 20, part 3)."""

from __future__ import annotations

import json

import httpx

from agent_tui.chat.items import AIItem, HumanItem, NoticeItem
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient


def chunk(text: str, message_id: str) -> str:
    metadata = {"langgraph_node": "call_model"}
    return json.dumps([{"type": "AIMessageChunk", "id": message_id, "content": text}, metadata])


async def test_the_first_answer_of_a_node_that_ran_again_is_not_left_as_an_answer() -> None:
    first = (
        'id: a\nevent: metadata\ndata: {"run_id": "r1"}\n\n'
        f"id: b\nevent: messages\ndata: {chunk('Hel', 'first-try')}\n\n"
    )  # … and the server restarts: the stream drops
    rejoin = (
        f"id: c\nevent: messages\ndata: {chunk('Hello there', 'second-try')}\n\n"
        "event: end\ndata: null\n\n"
    )
    state = {
        "messages": [
            {"type": "human", "id": "h-1", "content": "hi"},
            {"type": "ai", "id": "second-try", "content": "Hello there"},
        ]
    }
    joined: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        stream = {"content-type": "text/event-stream", "content-location": "/threads/t/runs/r1"}
        if request.method == "POST":
            return httpx.Response(200, content=first.encode(), headers=stream)
        if request.url.path.endswith("/stream"):
            joined.append(request.headers.get("last-event-id"))
            return httpx.Response(200, content=rejoin.encode(), headers=stream)
        if request.url.path.endswith("/runs/r1"):
            status = "success" if joined else "running"
            return httpx.Response(200, json={"run_id": "r1", "status": status})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle", "values": state})

    transport = httpx.MockTransport(answer)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        session = ChatSession(client, "t", backoff=(0.0,))
        [step async for step in session.send(RunRequest("memory"), "hi")]
    items = session.transcript.items
    messages = [(type(i).__name__, i.text) for i in items if isinstance(i, HumanItem | AIItem)]
    assert messages == [("HumanItem", "hi"), ("AIItem", "Hello there")]
    assert [i.text for i in items if isinstance(i, NoticeItem)] == [
        "The server restarted while `call_model` ran; it ran again: the transcript shows what"
        " the thread kept, not the first, unfinished answer."
    ]
