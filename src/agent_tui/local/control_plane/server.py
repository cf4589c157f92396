"""Running the local control plane: in this process (a uvicorn thread) or from the CLI.

`LocalControlPlane` binds a loopback socket on a free port first, so the URL is known
before the server answers and no other process can take the port in between.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import uvicorn

from agent_tui.local.control_plane.app import create_app
from agent_tui.local.control_plane.auth import control_plane_key
from agent_tui.local.supervisor.lock import (
    RunningServer,
    ServerLock,
    ServerLockHeld,
    running_server,
)
from agent_tui.settings import paths


def default_data_dir() -> Path:
    return paths.control_plane_data_dir()


def bind_socket(host: str, port: int) -> socket.socket:
    """A socket listening on `host` and `port` (0: a free one, read back from the socket):
    a client that connects before the server runs waits for it rather than being refused.
    `OSError` when it cannot be had (the port is taken, the address is not this machine's)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


KEEP_ALIVE = 30
"""Seconds an idle connection is kept open, well past the client's 2 s idle limit
(`client.transport.LIMITS`): at uvicorn's 5 s, a loop stalled a few seconds (a loaded
machine) closed a connection a request had just been sent on."""


class ControlPlaneRunning(RuntimeError):
    """Another process serves the local control plane of this data folder (one per folder:
    two would each run the deployments and record over each other)."""

    def __init__(self, running: RunningServer) -> None:
        self.running = running
        where = f"at {running.url}" if running.url else "(starting)"
        owner = f" (process {running.pid})" if running.pid else ""
        super().__init__(
            f"a local control plane for {running.data_dir} already runs {where}{owner}"
        )


async def running_url(running: ControlPlaneRunning) -> str:
    """Where the control plane another process serves answers, once it has said so (it
    records its URL as soon as it listens; `RuntimeError` if it never does, or stops)."""
    found: RunningServer | None = running.running
    deadline = time.monotonic() + 30
    while found is not None and found.url is None and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # another process's progress: no event to wait on
        found = running_server(running.running.data_dir)
    if found is None or found.url is None:
        raise RuntimeError(f"{running}, and did not say where it answers")
    return found.url


def lock_data_dir(data_dir: Path) -> ServerLock:
    """The data folder's lock, held while its control plane runs (`ControlPlaneRunning`
    when another process holds it); `ServerLock.record` then says where it answers."""
    try:
        return ServerLock.acquire(data_dir)
    except ServerLockHeld as held:
        raise ControlPlaneRunning(held.running) from held


class LocalControlPlane:
    """The local control plane served by uvicorn in a background thread."""

    def __init__(
        self, data_dir: Path | None = None, *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.data_dir = data_dir if data_dir is not None else default_data_dir()
        self.host = host
        self.api_key = control_plane_key(self.data_dir)
        self._requested_port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._lock: ServerLock | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the local control plane was not started")
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        """Serve the data folder; `ControlPlaneRunning` when another process does."""
        self._lock = lock_data_dir(self.data_dir)
        try:
            self._serve(timeout)
        except BaseException:
            self.stop()
            raise

    def _serve(self, timeout: float) -> None:
        assert self._lock is not None
        sock = bind_socket(self.host, self._requested_port)
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            create_app(self.data_dir, self.api_key),
            log_level="warning",
            lifespan="on",
            access_log=False,
            timeout_keep_alive=KEEP_ALIVE,
        )
        self._server = server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="local-control-plane", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the local control plane did not start")
            time.sleep(0.02)
        self._lock.record(url=self.url, server_pid=os.getpid(), config=None)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop serving; deployed agent servers stop with it (they restart on next start)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._server = self._thread = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
