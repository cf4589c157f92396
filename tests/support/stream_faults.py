"""An httpx transport in front of the real agent server that breaks the next run stream in
ways a real server does not on demand: it goes silent without closing (`stall`), it
sends only heartbeats from then on, never closing (`heartbeats`), it never ends and
floods the client (`flood`: small tokens and custom events; `endless`: 1,000-character
chunks, a new message every 100 chunks), it sends `event: error` and then stays open
(`error`), or it breaks off in the middle of the next event: the connection breaks there
(`cut`) or closes there as if the body were done (`half`).
Everything else — the run itself, cancel, rejoin, the thread — is the real server's.

    faults = FaultyStreams()
    faults.arm(Fault("stall", after_events=20))
    async with AgentServerClient(url, http_transport=faults) as client: ...

Only the run request's stream (`POST …/runs/stream`) is broken, and only once, so a
rejoin goes through untouched. `faults.streams[-1]` tells what happened to it: how many
events went through, how many were made up, and whether the client closed it.

Import it from any test as `from tests.support.stream_faults import FaultyStreams`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

import httpx

from agent_tui.client.tls import loopback_tls_context

# langgraph-api ends each event with CRLF CRLF; the other forms are for completeness.
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


@dataclass(frozen=True)
class Fault:
    kind: Literal["stall", "heartbeats", "flood", "endless", "error", "cut", "half"]
    after_events: int = 10  # real events passed through first (heartbeats not counted)
    message_id: str = "endless"  # the AI message a flood streams into (`endless`: a prefix)
    chunk_chars: int = 1_000  # `endless`: characters of each chunk
    chunks_per_message: int = 100  # `endless`: chunks of one message id


def flood_batch(message_id: str, start: int, size: int = 100) -> bytes:
    """`size` made-up events: a token of `message_id`, then a custom event, in turn."""
    events = []
    for n in range(start, start + size):
        if n % 2:
            data = json.dumps({"flood": n})
            events.append(b"event: custom\r\ndata: " + data.encode() + b"\r\n\r\n")
        else:
            chunk = {"type": "AIMessageChunk", "id": message_id, "content": f"t{n} "}
            data = json.dumps([chunk, {"langgraph_node": "agent"}])
            events.append(b"event: messages\r\ndata: " + data.encode() + b"\r\n\r\n")
    return b"".join(events)


# What langgraph-api sends beside each `messages` chunk (stream mode `messages-tuple`).
_CHUNK_METADATA = {
    "langgraph_step": 1,
    "langgraph_node": "agent",
    "langgraph_triggers": ["branch:to:agent"],
    "langgraph_path": ["__pregel_pull", "agent"],
    "langgraph_checkpoint_ns": "agent:6c1f6f8e-8d2e-5b4c-9a0e-0d3b1a2c4e5f",
    "checkpoint_ns": "agent:6c1f6f8e-8d2e-5b4c-9a0e-0d3b1a2c4e5f",
    "ls_provider": "fake",
    "ls_model_name": "endless",
    "ls_model_type": "chat",
}


def endless_batch(fault: Fault, start: int, size: int = 20) -> bytes:
    """`size` made-up `messages` events of `fault.chunk_chars` characters each, in
    paragraphs (Markdown a model writes), the message id changing every
    `fault.chunks_per_message` chunks."""
    events = []
    for n in range(start, start + size):
        words = f"chunk {n} of an answer that never ends; " * (fault.chunk_chars // 40 + 1)
        text = words[: fault.chunk_chars - 2] + "\n\n"
        message = f"{fault.message_id}-{n // fault.chunks_per_message}"
        chunk = {"type": "AIMessageChunk", "id": message, "content": text}
        data = json.dumps([chunk, _CHUNK_METADATA])
        events.append(f"event: messages\r\ndata: {data}\r\n\r\n".encode())
    return b"".join(events)


class FaultStream(httpx.AsyncByteStream):
    def __init__(self, real: httpx.AsyncByteStream, fault: Fault) -> None:
        self.real = real
        self.fault = fault
        self.passed = 0  # real events passed through
        self.made_up = 0  # events the fault sent
        self.faulty = asyncio.Event()  # the fault has begun
        self.closed = asyncio.Event()  # the client closed the stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        buffer = b""
        chunks = aiter(self.real)
        async for chunk in chunks:
            buffer += chunk
            out = b""
            while match := _EVENT_END.search(buffer):
                event, buffer = buffer[: match.end()], buffer[match.end() :]
                out += event
                if not event.startswith(b":"):
                    self.passed += 1
                if self.passed >= self.fault.after_events:
                    if out:
                        yield out
                    if self.fault.kind in ("cut", "half"):
                        async for piece in self._break_off(buffer, chunks):
                            yield piece
                        return
                    async for piece in self._fault():
                        yield piece
                    return
            if out:
                yield out
        if buffer:
            yield buffer

    async def _break_off(self, buffer: bytes, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """Half of the next real event (heartbeats skipped), then a broken connection
        (`cut`) or the end of the body (`half`)."""
        while True:
            if match := _EVENT_END.search(buffer):
                event, buffer = buffer[: match.start()], buffer[match.end() :]
                if not event.startswith(b":"):
                    break
                continue
            chunk = await anext(chunks, None)
            if chunk is None:
                event = buffer
                break
            buffer += chunk
        self.faulty.set()
        yield event[: max(1, len(event) // 2)]
        if self.fault.kind == "cut":
            raise httpx.RemoteProtocolError("the connection broke (stream_faults: cut)")

    async def _fault(self) -> AsyncIterator[bytes]:
        self.faulty.set()
        kind = self.fault.kind
        if kind == "error":
            error = {"error": "Boom", "message": "the server failed and kept the stream open"}
            yield b"event: error\r\ndata: " + json.dumps(error).encode() + b"\r\n\r\n"
            self.made_up += 1
        if kind in ("stall", "error"):
            await asyncio.Event().wait()  # silent, open, until the client closes it
        while kind == "heartbeats":
            yield b": heartbeat\r\n\r\n"
            await asyncio.sleep(0.2)
        while kind == "endless":
            yield endless_batch(self.fault, self.made_up)
            self.made_up += 20
            await asyncio.sleep(0)
        while True:
            yield flood_batch(self.fault.message_id, self.made_up)
            self.made_up += 100
            await asyncio.sleep(0)  # a socket read would let the client's loop run too

    async def aclose(self) -> None:
        self.closed.set()
        await self.real.aclose()


class FaultyStreams(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self._real = httpx.AsyncHTTPTransport(verify=loopback_tls_context())
        self._fault: Fault | None = None
        self.streams: list[FaultStream] = []

    def arm(self, fault: Fault) -> None:
        """Break the next run request's stream this way."""
        self._fault = fault

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._real.handle_async_request(request)
        fault = self._fault
        is_run_stream = request.method == "POST" and request.url.path.endswith("/runs/stream")
        if fault is None or not is_run_stream or response.status_code != 200:
            return response
        self._fault = None
        assert isinstance(response.stream, httpx.AsyncByteStream)
        stream = FaultStream(response.stream, fault)
        self.streams.append(stream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._real.aclose()
