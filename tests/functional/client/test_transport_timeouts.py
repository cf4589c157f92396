"""A server that takes requests and never answers: each timeout (one, not one per
retry) marks the connection offline (the header's failure listeners), however many in a
row, and the first answer after them marks it back — the header must never say
"connected" through timeouts."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agent_tui.client import RequestTimedOut, RetryPolicy, Transport


class StallingServer:
    """Reads each request; answers 200 while `answering`, else keeps the socket open."""

    def __init__(self) -> None:
        self.answering = False
        self.requests = 0
        self._server: asyncio.Server | None = None
        self._held: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> StallingServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for writer in self._held:
            writer.close()
        assert self._server is not None
        self._server.close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._held.append(writer)
        while True:
            try:
                await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            self.requests += 1
            if self.answering:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                await writer.drain()


async def test_each_timeout_reports_the_server_unreachable_until_it_answers() -> None:
    async with StallingServer() as server:
        transport = Transport(
            server.url,
            timeout=httpx.Timeout(0.3),
            retry=RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02),
        )
        unreachable: list[str] = []
        answered: list[None] = []
        transport.failure_listeners.append(unreachable.append)
        transport.response_listeners.append(lambda: answered.append(None))
        try:
            for attempt in range(1, 4):
                with pytest.raises(RequestTimedOut) as raised:
                    await transport.request("GET", "/threads/x")
                assert f"no answer from {server.url}" in str(raised.value)
                # Each failed request (after its retries) tells the app once.
                assert unreachable == [f"{server.url}/threads/x"] * attempt
            # A request the server took and never answered is not sent again: the
            # user learns in one read timeout, not one per retry.
            assert server.requests == 3 and answered == []

            server.answering = True
            assert (await transport.request("GET", "/ok")).json() == {}
            assert answered == [None] and len(unreachable) == 3
        finally:
            await transport.aclose()
