"""Running the trace collector: its key, its socket, its uvicorn server, and
`TraceCollector`, the collector in a thread of this process (the tests' and some
benchmarks'). The local agent servers agent-tui starts trace to a collector in a child
process instead (`process`, `child`): ingestion then never competes with the app for its
GIL. `agent-tui traces serve` runs it alone, in the foreground.

Its folder is ``<user data>/traces``: the store (`traces.store.DB_FILE`) and the key
(``api-key``, 0600, made on first start; ``AGENT_TUI_TRACES_KEY`` instead when set).
Several collectors may write the same store (two agent-tui windows), and other processes
read it while one writes (the app's Calls tab and run totals, `agent-tui traces list`):
SQLite in WAL mode takes turns.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from agent_tui.local.project_files import read_project_file
from agent_tui.traces.redaction import Redactor
from agent_tui.traces.store import DB_FILE, DEFAULT_MAX_BYTES, TraceStore

if TYPE_CHECKING:
    import uvicorn

    from agent_tui.local.trace_collector.app import RequestListener

KEY_ENV = "AGENT_TUI_TRACES_KEY"
KEY_FILE = "api-key"
_KEY_FILE_LIMIT = 64 << 10
KEEP_ALIVE = 30  # seconds: the SDK sends a batch every few hundred ms while it traces


def default_folder() -> Path:
    from agent_tui.settings import paths

    return paths.data_dir() / "traces"


def collector_key(folder: Path) -> str:
    """The key clients send: ``AGENT_TUI_TRACES_KEY``, else the stored (or a new) one."""
    from_env = os.environ.get(KEY_ENV, "").strip()
    if from_env:
        return from_env
    path = folder / KEY_FILE
    try:
        stored = read_project_file(path, _KEY_FILE_LIMIT).decode("utf-8").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        stored = ""
    if stored:
        return stored
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = f"ltc_{secrets.token_urlsafe(32)}"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(key + "\n")
    os.replace(temporary, path)  # whole or not at all
    return key


def bind_socket(host: str, port: int) -> socket.socket:
    """A loopback socket listening before the server runs: the URL is known, and a
    client that connects early waits instead of being refused. `OSError` if taken."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(512)
    except OSError:
        sock.close()
        raise
    return sock


def tracing_variables(url: str, api_key: str) -> dict[str, str]:
    """What a process needs to trace to the collector at ``url`` with the `langsmith` SDK.
    Every spelling of the switch: the SDK reads ``LANGSMITH_TRACING_V2`` first."""
    return {
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_TRACING_V2": "true",
        "LANGCHAIN_TRACING_V2": "true",
        "LANGCHAIN_TRACING": "true",
        "LANGSMITH_ENDPOINT": url,
        "LANGSMITH_API_KEY": api_key,
    }


def http_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def uvicorn_server(
    store: TraceStore,
    api_key: str,
    *,
    compression: bool = True,
    on_request: RequestListener | None = None,
) -> uvicorn.Server:
    """The collector's app of ``store`` in a uvicorn server, to run on a bound socket."""
    import uvicorn

    from agent_tui.local.trace_collector.app import create_app

    config = uvicorn.Config(
        create_app(store, api_key, compression=compression, on_request=on_request),
        log_level="warning",
        lifespan="off",
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE,
    )
    return uvicorn.Server(config)


class TraceCollector:
    """The collector served by uvicorn in a background thread of this process."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        compression: bool = True,
    ) -> None:
        self.folder = folder if folder is not None else default_folder()
        self.host = host
        self.api_key = collector_key(self.folder)
        self.store = TraceStore(
            self.folder / DB_FILE, max_bytes=max_bytes, redactor=Redactor([self.api_key])
        )
        self._requested_port = port
        self._compression = compression
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stopping = False
        self.port: int | None = None
        self.received: Counter[str] = Counter()
        """Requests stored, by kind (`app.RequestListener`): what the SDK chose to send."""

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the trace collector was not started")
        return http_url(self.host, self.port)

    def tracing_environment(self) -> dict[str, str]:
        """What a process needs to trace here with the `langsmith` SDK."""
        return tracing_variables(self.url, self.api_key)

    def start(self, timeout: float = 30.0, *, wait: bool = True) -> None:
        """Listen, and serve from a thread. ``wait=False`` returns once the socket
        listens (the URL is known, and a client that connects meanwhile waits in the
        backlog): uvicorn's import and start, a few hundred ms, then happen in the
        thread, not in the way of the agent server's start."""
        sock = bind_socket(self.host, self._requested_port)
        self.port = int(sock.getsockname()[1])
        self._thread = threading.Thread(
            target=self._serve, args=(sock,), name="trace-collector", daemon=True
        )
        self._thread.start()
        if not wait:
            return
        deadline = time.monotonic() + timeout
        while not (self._server is not None and self._server.started):
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the trace collector did not start")
            time.sleep(0.01)

    def _serve(self, sock: socket.socket) -> None:
        server = uvicorn_server(
            self.store, self.api_key, compression=self._compression, on_request=self._count
        )
        with self._lock:
            if self._stopping:
                sock.close()
                return
            self._server = server
        server.run(sockets=[sock])

    def _count(self, kind: str) -> None:
        self.received[kind] += 1

    def stop(self, timeout: float = 10.0) -> None:
        with self._lock:
            self._stopping = True
            if self._server is not None:
                self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._server = self._thread = None

    def close(self) -> None:
        self.stop()
        self.store.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
