"""The trace collector in a child process (`child`), for the local agent servers this
process starts: the ingestion (zstd, JSON, SQLite writes) then runs beside the app, not
under its GIL, where a run of many model calls made its keys wait.

`start` opens the key (made on first use, as `server.collector_key` says) and the store
(so what usually keeps a collector from starting, a folder or file it cannot write, is
known here), binds a free port of 127.0.0.1 and starts the child with that socket (on
POSIX), so the URL is known at once and a client that connects before the child serves
waits in the backlog; it hands the child the key on stdin. ``wait=False`` returns then:
the child's start (an interpreter, uvicorn's import) goes on beside the agent server's.
Otherwise (and where a socket cannot be inherited) it waits for the child's ``READY``
line. A child that cannot start says why before it exits: `start` raises `RuntimeError`
with its words, or, once returned, they are logged.

The child never outlives this process: `stop` (atexit, for `wiring.shared_collector`)
closes its stdin, and so does this process's end, however it ends (`local.lifeline`).
It runs in a session of its own: a ctrl+c in the terminal reaches the app, not it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Self

from agent_tui.local.child_processes import NEW_SESSION, clean_line, kill_group
from agent_tui.local.trace_collector.child import READY_PREFIX
from agent_tui.local.trace_collector.server import (
    bind_socket,
    collector_key,
    default_folder,
    http_url,
    tracing_variables,
)
from agent_tui.traces.store import DB_FILE, DEFAULT_MAX_BYTES, TraceStore

logger = logging.getLogger(__name__)

INHERIT_SOCKET = os.name == "posix"
"""The child gets its listening socket from us by fd (elsewhere it binds one itself)."""
START_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0
_KEPT_LINES = 5


class CollectorProcess:
    """A trace collector child of this process, with the folder's key and a size bound."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        host: str = "127.0.0.1",
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.folder = folder if folder is not None else default_folder()
        self.host = host
        self.max_bytes = max_bytes
        self.api_key = collector_key(self.folder)
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._answered = threading.Event()
        self._ready = False
        self._caller_waits = True
        self._said: deque[str] = deque(maxlen=_KEPT_LINES)

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the trace collector was not started")
        return http_url(self.host, self.port)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def tracing_environment(self) -> dict[str, str]:
        """What a process needs to trace here with the `langsmith` SDK."""
        return tracing_variables(self.url, self.api_key)

    def start(self, timeout: float = START_TIMEOUT, *, wait: bool = True) -> None:
        """Start the child; with ``wait``, until it listens (`RuntimeError` if it does
        not). `OSError` or `RuntimeError` if it cannot be started at all."""
        try:
            TraceStore(self.folder / DB_FILE, max_bytes=self.max_bytes).close()
        except sqlite3.Error as error:
            raise RuntimeError(f"cannot open the trace store in {self.folder}: {error}") from None
        self._caller_waits = wait
        sock = bind_socket(self.host, 0) if INHERIT_SOCKET else None
        command = [
            sys.executable,
            "-P",  # the working folder is the user's, not a place for modules
            "-m",
            "agent_tui.local.trace_collector.child",
            "--folder",
            str(self.folder),
            "--max-bytes",
            str(self.max_bytes),
            "--host",
            self.host,
        ]
        if sock is not None:
            command += ["--fd", str(sock.fileno())]
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=[sock.fileno()] if sock is not None else [],
                start_new_session=NEW_SESSION,
                creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
            )
        finally:
            if sock is not None:
                # The child's now: ours closed, so a child that is gone refuses clients.
                self.port = int(sock.getsockname()[1])
                sock.close()
        self._process = process
        assert process.stdin is not None
        try:
            process.stdin.write(f"{self.api_key}\n".encode())
            process.stdin.flush()
        except OSError:
            pass  # it is already gone: its output says why
        threading.Thread(
            target=self._read_output, name="trace-collector-output", daemon=True
        ).start()
        if self.port is not None and not wait:
            return
        if not self._answered.wait(timeout):
            self.stop()
            raise RuntimeError(f"the trace collector did not start within {timeout:.0f}s")
        if not self._ready:
            status = self.stop()
            reason = "; ".join(self._said) or f"it exited with status {status}"
            raise RuntimeError(f"the trace collector did not start: {reason}")

    def _read_output(self) -> None:
        """The child's lines, on a thread: the port once, then whatever it says (logged)."""
        assert self._process is not None and self._process.stdout is not None
        for raw in self._process.stdout:
            line = clean_line(raw)
            if not self._ready and line.startswith(READY_PREFIX):
                self.port = int(line.removeprefix(READY_PREFIX))
                self._ready = True
                self._answered.set()
            elif line.strip():
                self._said.append(line)
                logger.warning("trace collector (process %s): %s", self._process.pid, line)
        if not self._ready and not self._caller_waits:  # else `start` raises with it
            reason = "; ".join(self._said) or "it exited"
            logger.warning("the trace collector did not start, so runs are not traced: %s", reason)
        self._answered.set()  # it ended: `start` stops waiting

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """End the child (its stdin closed: it stops as when this process dies; killed if
        it has not within ``timeout``), and its exit status."""
        process = self._process
        if process is None:
            return None
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_group(process.pid, process.kill)
            return process.wait()

    close = stop

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
