"""Cancelling a run whose server misbehaves (an httpx transport answers: a real server
does not do this on demand): the stream never ends and the server ignores the cancel,
or never answers it. The cancel still ends the run here, at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx

from agent_tui.chat.driver_events import DriverEvent, Finished, Received
from agent_tui.chat.run_driver import RunDriver
from agent_tui.chat.run_request import RunRequest
from agent_tui.client import AgentServerClient


class EndlessBody(httpx.AsyncByteStream):
    """Token events forever; notes when the client closes it."""

    def __init__(self) -> None:
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'event: metadata\ndata: {"run_id": "r1"}\n\n'
        n = 0
        while True:
            chunk = {"type": "AIMessageChunk", "id": "ai-1", "content": f"{n} "}
            data = json.dumps([chunk, {"langgraph_node": "agent"}])
            yield f"event: messages\ndata: {data}\n\n".encode()
            n += 1
            await asyncio.sleep(0)

    async def aclose(self) -> None:
        self.closed = True


class StubbornServer:
    """A run stream that never ends, a run that stays `running` whatever is asked, and
    a cancel endpoint that answers 202 (or never, with `answer_cancel=False`)."""

    def __init__(self, *, answer_cancel: bool = True) -> None:
        self.answer_cancel = answer_cancel
        self.body = EndlessBody()
        self.cancels = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith("/runs/stream"):
            headers = {
                "content-type": "text/event-stream",
                "content-location": "/threads/t/runs/r1",
            }
            return httpx.Response(200, headers=headers, stream=self.body)
        if path.endswith("/cancel"):
            self.cancels += 1
            if not self.answer_cancel:
                await asyncio.Event().wait()
            return httpx.Response(202)
        if path.endswith("/runs/r1"):
            return httpx.Response(200, json={"run_id": "r1", "status": "running"})
        return httpx.Response(200, json={"thread_id": "t", "status": "busy"})


async def cancel_after(server: StubbornServer, driver: RunDriver, tokens: int) -> list[DriverEvent]:
    """Follow the run; after `tokens` events, cancel it from another task (as the esc key
    does). Bounded, so a cancel that never ends the run fails instead of hanging."""
    events: list[DriverEvent] = []
    cancelling: list[asyncio.Task[bool]] = []

    async def follow() -> None:
        async for driver_event in driver.stream(RunRequest("chat", input={})):
            events.append(driver_event)
            if len(events) == tokens:
                cancelling.append(asyncio.create_task(driver.cancel()))

    await asyncio.wait_for(follow(), 30)
    assert cancelling and await cancelling[0]
    return events


async def test_cancel_closes_a_stream_that_never_ends_though_the_server_ignores_it() -> None:
    server = StubbornServer()
    transport = httpx.MockTransport(server)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        driver = RunDriver(client, "t", settle=(0.01,))
        events = await cancel_after(server, driver, 50)
    assert server.body.closed and server.cancels == 1
    assert sum(isinstance(e, Received) for e in events) >= 50
    assert events[-1] == Finished(
        "cancelled",
        "r1",
        "busy",
        "the server did not confirm the cancel: the server still reports the run as running",
    )


async def test_cancel_ends_the_run_here_though_the_server_never_answers_it() -> None:
    server = StubbornServer(answer_cancel=False)
    transport = httpx.MockTransport(server)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        driver = RunDriver(client, "t", settle=(0.01,), cancel_timeout=0.2)
        events = await cancel_after(server, driver, 20)
    assert server.body.closed
    final = events[-1]
    assert isinstance(final, Finished) and final.state == "cancelled"
    assert final.reason == "the server did not confirm the cancel: no answer within 0.2 s"
