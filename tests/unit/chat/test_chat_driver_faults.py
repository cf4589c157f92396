"""RunDriver against faults a real server does not produce on demand (an httpx transport
answers instead): unknown event kinds, a body that ends cleanly mid-run, a plain 404 rejoin."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agent_tui.chat.driver_events import Finished, Received, Reconnected, Reconnecting, RunGone
from agent_tui.chat.run_driver import RunDriver
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client import AgentServerClient


def chunk(text: str) -> dict[str, Any]:
    return {"type": "AIMessageChunk", "id": "ai-1", "content": text}


async def test_every_event_reaches_the_inspector_even_unknown_kinds() -> None:
    # A server that sends an event kind this client does not know: not producible with the
    # real server, so a transport answers for it.
    body = (
        'event: metadata\ndata: {"run_id": "r1"}\nid: 1-0\n\n'
        'event: brand_new_kind\ndata: {"x": 1}\nid: 2-0\n\n'
        "event: end\ndata: null\n\n"
    )

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            headers = {
                "content-type": "text/event-stream",
                "content-location": "/threads/t/runs/r1",
            }
            return httpx.Response(200, text=body, headers=headers)
        if request.url.path.endswith("/runs/r1"):
            return httpx.Response(200, json={"run_id": "r1", "status": "success"})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle"})

    transport = httpx.MockTransport(answer)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        driver = RunDriver(client, "t")
        events = [e async for e in driver.stream(RunRequest("chat", input={}))]
    received = [e.event.raw_event for e in events if isinstance(e, Received)]
    assert received == ["metadata", "brand_new_kind", "end"]
    assert events[-1] == Finished("done", "r1", "idle")
    model = ChatTranscript()
    assert all(model.apply(e.event) == [] for e in events if isinstance(e, Received))


def sse(*events: tuple[str, Any, str]) -> str:
    return "".join(
        f"event: {name}\ndata: {json.dumps(data)}\nid: {i}\n\n" for name, data, i in events
    )


class FlakyServer:
    """Faults the real server does not produce on demand: a body that ends cleanly while
    the run still runs, and a rejoin answered with a plain 404."""

    def __init__(self, *, join_status: int = 200) -> None:
        self.join_status = join_status
        self.joined = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        stream = {"content-type": "text/event-stream", "content-location": "/threads/t/runs/r1"}
        path = request.url.path
        if request.method == "POST":
            body = sse(("metadata", {"run_id": "r1"}, "1-0"), ("messages", [chunk("a"), {}], "2-0"))
            return httpx.Response(200, text=body, headers=stream)
        if path.endswith("/stream"):
            self.joined = True
            if self.join_status != 200:
                return httpx.Response(self.join_status, json={"detail": "Run not found"})
            assert request.headers["last-event-id"] == "1-0"
            body = sse(("messages", [chunk("a"), {}], "2-0"), ("messages", [chunk("b"), {}], "3-0"))
            return httpx.Response(200, text=body, headers=stream)
        if path.endswith("/runs/r1"):
            status = "success" if self.joined else "running"
            return httpx.Response(200, json={"run_id": "r1", "status": status})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle"})


async def test_a_body_that_ends_before_the_run_is_rejoined() -> None:
    server = FlakyServer()
    transport = httpx.MockTransport(server)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        driver = RunDriver(client, "t", backoff=(0.01,), settle=(0.01,))
        events = [e async for e in driver.stream(RunRequest("chat", input={}))]
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Received"] * 2 + ["Reconnecting", "Received", "Reconnected", "Received"] + [
        "Finished"
    ]
    reconnecting = events[2]
    assert isinstance(reconnecting, Reconnecting)
    assert reconnecting.reason == "the stream ended before the run did"
    assert [e.duplicate for e in events if isinstance(e, Received)] == [False, False, True, False]
    assert events[4] == Reconnected(1, 1)
    assert events[-1] == Finished("done", "r1", "idle")


async def test_a_rejoin_answered_404_reports_the_run_gone() -> None:
    transport = httpx.MockTransport(FlakyServer(join_status=404))
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        driver = RunDriver(client, "t", backoff=(0.01,), settle=(0.01,))
        events = [e async for e in driver.stream(RunRequest("chat", input={}))]
    assert [type(e).__name__ for e in events[-2:]] == ["RunGone", "Finished"]
    assert isinstance(events[-2], RunGone) and "Run not found" in events[-2].message
    assert events[-1] == Finished("done", "r1", "idle", "the run is gone from the server")


class CutServer:
    """A run body that stops inside an event; until the rejoin, the run's record is
    answered (`up`) or the connection refused."""

    def __init__(self, *, up: bool) -> None:
        self.up = up
        self.rejoined = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        stream = {"content-type": "text/event-stream", "content-location": "/threads/t/runs/r1"}
        path = request.url.path
        if request.method == "POST":
            body = sse(("metadata", {"run_id": "r1"}, "1-0")) + 'event: messages\ndata: [{"ty'
            return httpx.Response(200, text=body, headers=stream)
        if path.endswith("/stream"):
            self.rejoined = True
            body = sse(("messages", [chunk("a"), {}], "2-0"))
            return httpx.Response(200, text=body, headers=stream)
        if path.endswith("/runs/r1"):
            if not (self.up or self.rejoined):
                raise httpx.ConnectError("connection refused", request=request)
            return httpx.Response(200, json={"run_id": "r1", "status": "success"})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle"})


@pytest.mark.parametrize(
    ("up", "reason"),
    [
        (True, "the stream was cut mid-event; the server is up"),
        (False, "the stream was cut mid-event, and the server does not answer"),
    ],
)
async def test_a_stream_cut_mid_event_asks_the_server_before_saying_why(
    up: bool, reason: str
) -> None:
    transport = httpx.MockTransport(CutServer(up=up))
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        offline: list[str] = []
        client.transport.failure_listeners.append(offline.append)
        driver = RunDriver(client, "t", backoff=(0.01,), settle=(0.01,))
        events = [e async for e in driver.stream(RunRequest("chat", input={}))]
    [reconnecting] = [e for e in events if isinstance(e, Reconnecting)]
    assert reconnecting.reason == reason
    # Only a server that does not answer marks the connection offline (the header).
    assert bool(offline) is not up
    assert events[-1] == Finished("done", "r1", "idle")
