"""A loopback TCP proxy that a test can use to cut connections mid-stream.

Put it in front of a real server (`DropProxy(host, port)` or `DropProxy.in_front_of(url)`),
point the client at `proxy.url`, and call `drop_all()` to abort every open connection at
once — what a network blip or a restarted load balancer does to an SSE stream — or
`drop_after_bytes(n)` to cut the next response after `n` bytes. New connections keep
working, so a client can reconnect through the same proxy.

Import it from any test as `from tests.support.drop_proxy import DropProxy`.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


class _Connection:
    def __init__(self, client: asyncio.StreamWriter, upstream: asyncio.StreamWriter) -> None:
        self.client = client
        self.upstream = upstream
        self.sent_to_client = 0

    def abort(self) -> None:
        # abort(): no FIN handshake and no flush — the peer sees the stream cut short.
        for writer in (self.client, self.upstream):
            transport = writer.transport
            if not transport.is_closing():
                transport.abort()


class DropProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.connections_opened = 0
        self.connections_dropped = 0
        self._server: asyncio.Server | None = None
        self._open: set[_Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._drop_after: int | None = None

    @classmethod
    def in_front_of(cls, url: str) -> DropProxy:
        parts = urlsplit(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or 80)

    @property
    def port(self) -> int:
        assert self._server is not None, "call start() first"
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> DropProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        self.drop_all()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def __aenter__(self) -> DropProxy:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def drop_all(self) -> int:
        """Abort every open connection; returns how many there were."""
        dropped = list(self._open)
        for connection in dropped:
            connection.abort()
        self._open.clear()
        self.connections_dropped += len(dropped)
        return len(dropped)

    def drop_after_bytes(self, n: int) -> None:
        """Cut the next connection that sends more than `n` bytes back to its client,
        right after those `n` bytes (once)."""
        self._drop_after = n

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            writer.transport.abort()
            return
        connection = _Connection(writer, up_writer)
        self._open.add(connection)
        self.connections_opened += 1
        tasks = [
            asyncio.create_task(self._pump(reader, up_writer, connection, to_client=False)),
            asyncio.create_task(self._pump(up_reader, writer, connection, to_client=True)),
        ]
        self._tasks.update(tasks)
        try:
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self._tasks.difference_update(tasks)
            self._open.discard(connection)
            connection.abort()

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        connection: _Connection,
        *,
        to_client: bool,
    ) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                limit = self._drop_after if to_client else None
                if limit is not None and connection.sent_to_client + len(data) > limit:
                    self._drop_after = None
                    writer.write(data[: max(0, limit - connection.sent_to_client)])
                    with contextlib.suppress(OSError):
                        await writer.drain()
                    self._open.discard(connection)
                    self.connections_dropped += 1
                    connection.abort()
                    return
                writer.write(data)
                await writer.drain()
                if to_client:
                    connection.sent_to_client += len(data)
            # The sender closed its side: pass the close on.
            if writer.can_write_eof():
                writer.write_eof()
