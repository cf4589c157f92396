"""A loopback proxy in front of a real server that holds some requests back until others
have been answered: to make the order in which a server answers certain.

    async with HeldRequests.in_front_of(url, hold=b"GET /info", until=b"POST /assistants/search") as proxy:
        ...  # point the app at proxy.url

A request whose first bytes are `hold` is passed on to the server only once a response to
a request starting with `until` has reached the client whole (its Content-Length read).
Everything else passes at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


class HeldRequests:
    def __init__(self, host: str, port: int, *, hold: bytes, until: bytes) -> None:
        self._target = (host, port)
        self._hold = hold
        self._until = until
        self.answered = asyncio.Event()  # a response to `until` reached the client
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    def in_front_of(cls, url: str, *, hold: bytes, until: bytes) -> HeldRequests:
        parts = urlsplit(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or 80, hold=hold, until=until)

    @property
    def url(self) -> str:
        assert self._server is not None, "use it as `async with`"
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> HeldRequests:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            self._tasks.discard(task)
            return
        watching: list[bool] = [False]  # the request now on this connection is `until`
        pumps = [
            asyncio.create_task(self._requests(reader, up_writer, watching)),
            asyncio.create_task(self._responses(up_reader, writer, watching)),
        ]
        try:
            await asyncio.gather(*pumps, return_exceptions=True)
        finally:
            for pump in pumps:
                pump.cancel()
            for end in (writer, up_writer):
                end.transport.abort()
            self._tasks.discard(task)

    async def _requests(
        self, reader: asyncio.StreamReader, upstream: asyncio.StreamWriter, watching: list[bool]
    ) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if data[:1].isalpha():  # a request's first bytes, not its JSON body
                    watching[0] = data.startswith(self._until)
                    if data.startswith(self._hold):
                        await self.answered.wait()
                upstream.write(data)
                await upstream.drain()

    async def _responses(
        self, upstream: asyncio.StreamReader, writer: asyncio.StreamWriter, watching: list[bool]
    ) -> None:
        response = b""
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await upstream.read(65536):
                writer.write(data)
                await writer.drain()
                if not watching[0]:
                    continue
                response += data
                head, blank, body = response.partition(b"\r\n\r\n")
                length = _content_length(head) if blank else None
                if length is not None and len(body) >= length:
                    response, watching[0] = b"", False
                    self.answered.set()


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return None
