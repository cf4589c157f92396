"""Supervisor of the embedded agent server: the real langgraph-api in-memory runtime.

`EmbeddedAgentServer` runs ``python -m agent_tui.server.main`` as a child process
for one ``langgraph.json``, on 127.0.0.1 and a free port, and guarantees it stops:

- ``stop()`` sends SIGTERM to the child's process group (a graceful shutdown), then
  SIGKILL after the timeout. ``atexit`` calls it too.
- If agent-tui dies without stopping it, the child notices that its stdin pipe closed
  (and on Linux gets a parent-death signal) and exits; see `agent_tui.server.main`.
- The child leads its own session, so Ctrl-C in the terminal reaches only agent-tui.

Each config gets its own working folder (`server_paths`), where data survives restarts;
only one server at a time may use a folder (`lock`): ``start()`` raises
`ServerAlreadyRunning` when another process's server owns it, and the lock is shared with
the child, so it is only free once the server has exited. How the process is launched
(its socket, command line, signals): `launch`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import re
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from agent_tui.local.langgraph_config import LangGraphConfig
from agent_tui.local.server_paths import local_server_data_dir, local_server_log_file
from agent_tui.local.supervisor import forked, launch
from agent_tui.local.supervisor.errors import (
    EmbeddedServerError,
    ServerAlreadyRunning,
    exited_before_ready,
)
from agent_tui.local.supervisor.lock import ServerLock, ServerLockError, ServerLockHeld
from agent_tui.local.supervisor.log import LineListener, ServerLog
from agent_tui.local.supervisor.readiness import wait_for_ok, wait_for_ok_async

DEFAULT_JOBS_PER_WORKER = 10
"""Runs the server executes at once (``run_server`` defaults to 1, which would make one
long run hold up every other thread; 10 is what langgraph-api documents as the default)."""

DEFAULT_READY_TIMEOUT = 60.0
"""Seconds to wait for ``/ok``: user graphs may import heavy libraries at start-up."""

_BIND_RETRIES = 2
_ADDRESS_IN_USE = re.compile(r"address already in use|only one usage of each socket", re.I)
_ERROR_LOG_LINES = 30


class EmbeddedAgentServer:
    """One langgraph-api server process for one ``langgraph.json``.

    Use ``start()`` then ``wait_until_ready()`` (or its async twin), and ``stop()``; or
    ``with EmbeddedAgentServer(path) as server:`` / ``async with``, which do all three.
    """

    def __init__(
        self,
        config: LangGraphConfig | Path,
        *,
        data_dir: Path | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        log_file: Path | None = None,
        env: Mapping[str, str] | None = None,
        jobs_per_worker: int = DEFAULT_JOBS_PER_WORKER,
        allow_blocking: bool = False,
        python: str | None = None,
        on_line: LineListener | None = None,
        hold_listener: bool = False,
    ) -> None:
        """Describe the server; nothing starts until ``start()``.

        ``config`` is the project's ``langgraph.json`` as the caller read it, or its path
        (read by ``start()``). ``data_dir`` is the server's working folder (default
        ``<user data>/servers/<server_key>``), ``log_file`` gets every output line (default
        ``<user log>/server-<server_key>.log``), ``port`` None picks a free one, ``env``
        overrides the (offline) environment, and ``allow_blocking`` turns off
        langgraph-api's detection of blocking calls in graphs, like ``langgraph dev
        --allow-blocking``. ``python`` is the interpreter to run the server with (the
        project's environment, `project_env.environment.ensure_environment`; default:
        agent-tui's). ``on_line`` gets each output line (control characters removed) as it arrives, from
        a reader thread. ``hold_listener`` keeps this process's copy of the listening
        socket open while the server runs, so that a `restart()` (live reload) serves on
        the same socket and requests made meanwhile wait instead of being refused.
        """
        self._config = config if isinstance(config, LangGraphConfig) else None
        config_path = config.path if isinstance(config, LangGraphConfig) else config
        self.config_path = config_path.expanduser().resolve()
        self.data_dir = data_dir if data_dir is not None else local_server_data_dir(config_path)
        self.log_file = log_file if log_file is not None else local_server_log_file(config_path)
        self.host = host
        self.startup_seconds: float | None = None
        """Seconds from ``start()`` to the first ``/ok`` answer, once ready."""
        self._requested_port = port
        self._env = dict(env or {})
        self._jobs = jobs_per_worker
        self._allow_blocking = allow_blocking
        self.python = python or sys.executable
        self._log = ServerLog(self.log_file, on_line=on_line)
        self._server_lock: ServerLock | None = None
        self._hold_listener = hold_listener and launch.SOCKET_INHERITANCE
        self._listener: socket.socket | None = None
        self._restarting = False
        self._stopped = False  # `stop` since the last `start`: a reload must not relaunch
        self._process: forked.ServerProcess | None = None
        self._standby = launch.ServerStandby()
        self._port: int | None = None
        self._started_at = 0.0
        self._bind_retries_left = 0
        self._lock = threading.Lock()

    # -- state ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._port is None:
            raise EmbeddedServerError("the embedded agent server was not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._port}"

    @property
    def config(self) -> LangGraphConfig:
        """The ``langgraph.json`` the server runs, read once: given, or by ``start()``; a
        reload hands `restart` the one it read after the save."""
        if self._config is None:
            raise EmbeddedServerError("the embedded agent server was not started")
        return self._config

    @property
    def port(self) -> int | None:
        return self._port

    @property
    def pid(self) -> int | None:
        """The server process id while it runs (for display and tests)."""
        return self._process.pid if self._process is not None else None

    @property
    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def crash_code(self) -> int | None:
        """The exit status of a server process that ended on its own (a crash, ``kill -9``:
        `errors.ended_how` says it); None while it runs, or a `stop` or `restart`
        ends it."""
        if not self._lock.acquire(blocking=False):
            return None  # a restart or stop is under way: it ends the process itself
        try:
            process, busy = self._process, self._stopped or self._restarting
            return process.poll() if process is not None and not busy else None
        finally:
            self._lock.release()

    def log_lines(self, last: int | None = None) -> list[str]:
        """The server's recent output lines (plain text, escape sequences removed)."""
        return self._log.lines(last)

    # -- start ---------------------------------------------------------------------------

    def start(self, *, lock: bool = True) -> None:
        """Launch the server process; returns at once. A no-op while it is running.

        ``lock``: take the data folder's lock first (`lock`). Raises
        `ServerAlreadyRunning` when another process's server holds it, and
        `EmbeddedServerError` when the config is unusable or the process can't start.
        """
        with self._lock:
            if self.is_running:
                return
            self._stopped = False
            if self._config is None:  # given its path: read it now, to fail fast
                self._config = launch.read_config(self.config_path)
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if lock and self._server_lock is None:
                self._server_lock = self._acquire_lock()
            self.startup_seconds = None
            self._started_at = time.monotonic()
            self._bind_retries_left = _BIND_RETRIES if self._requested_port is None else 0
            try:
                self._launch()
            except BaseException:
                self._release_lock()
                raise
            atexit.register(self.stop)

    def _acquire_lock(self) -> ServerLock:
        try:
            return ServerLock.acquire(self.data_dir, config=self.config_path)
        except ServerLockHeld as held:
            raise ServerAlreadyRunning(held.running, self.config_path) from None
        except ServerLockError as exc:
            raise EmbeddedServerError(f"cannot start the agent server: {exc}") from None

    def _release_lock(self) -> None:
        lock, self._server_lock = self._server_lock, None
        if lock is not None:
            lock.release()

    def _launch(self) -> None:
        listener = self._listener
        if listener is None and launch.SOCKET_INHERITANCE:
            listener = launch.listen(self.host, self._requested_port)
        if listener is not None:
            port = int(listener.getsockname()[1])
        else:
            port = self._requested_port or launch.free_port(self.host)
        command, options = self._launch_command(port, listener)
        process: forked.ServerProcess | None = self._standby.take(command, options, self.config.env)
        try:
            if process is None:
                process = forked.start(command + launch.thread_flags(), options)
        except OSError as exc:
            raise EmbeddedServerError(f"cannot start the agent server process: {exc}") from exc
        finally:
            if listener is not None and self._hold_listener:
                self._listener = listener  # for the next restart
            elif listener is not None:
                listener.close()  # the child has its own copy
        assert process.stdout is not None
        self._log.follow(process.stdout)
        self._process = process
        self._port = port

    def _launch_command(
        self, port: int, listener: socket.socket | None
    ) -> tuple[list[str], dict[str, Any]]:
        lock = self._server_lock
        return launch.launch_command(
            python=self.python,
            config_path=self.config_path,
            data_dir=self.data_dir,
            host=self.host,
            port=port,
            jobs=self._jobs,
            env=self._env,
            allow_blocking=self._allow_blocking,
            listener=listener,
            lock_fd=lock.fileno() if lock is not None else None,
        )

    def prepare_standby(
        self, config: LangGraphConfig | None = None, imports: Sequence[str] = ()
    ) -> None:
        """Start a prewarmed server process (`standby`) for the next `restart` (on
        ``config``, as live reload last read it; default: the one it runs), importing
        ``imports`` ahead, unless one waits already (and was not told to load). Only while
        the server runs on a held listening socket (``hold_listener``); `stop` kills it."""
        with self._lock:
            listener = self._listener
            if self._stopped or listener is None or not self.is_running:
                return
            command, options = self._launch_command(int(listener.getsockname()[1]), listener)
            self._standby.prepare(command, options, (config or self.config).env, imports)

    def load_standby(self) -> None:
        """Have the waiting standby run the graph files now, so the next `restart` does not."""
        with self._lock:
            self._standby.load()

    @property
    def standby_pid(self) -> int | None:
        """The waiting standby's process id, if one waits (for tests)."""
        return self._standby.pid

    def discard_standby(self) -> None:
        """Kill the waiting standby, if any (the environment it imported from changed)."""
        with self._lock:
            self._standby.discard()

    # -- readiness -----------------------------------------------------------------------

    def wait_until_ready(self, timeout: float = DEFAULT_READY_TIMEOUT) -> None:
        """Block until ``GET /ok`` answers; raise `EmbeddedServerError` on exit or timeout."""
        if wait_for_ok(lambda: self.url, lambda: self._check_alive(timeout), timeout):
            self._mark_ready()
        else:
            self._raise_timeout(timeout)

    async def wait_until_ready_async(self, timeout: float = DEFAULT_READY_TIMEOUT) -> None:
        """``wait_until_ready`` for an event loop: never blocks it."""

        async def check_alive() -> None:
            if not self.is_running:
                # The slow path (reading the last log lines, maybe relaunching) blocks.
                await asyncio.to_thread(self._check_alive, timeout)

        if await wait_for_ok_async(lambda: self.url, check_alive, timeout):
            await asyncio.to_thread(self._mark_ready)  # it writes a file
        else:
            await asyncio.to_thread(self._raise_timeout, timeout)

    def _check_alive(self, timeout: float) -> None:
        process = self._process
        if process is None:
            raise EmbeddedServerError("the embedded agent server was not started")
        code = process.poll()
        if code is None:
            return
        self._log.join(timeout=2.0)  # the last lines explain the exit
        lines = self.log_lines()
        if self._bind_retries_left > 0 and any(_ADDRESS_IN_USE.search(x) for x in lines[-50:]):
            # Another process took the port we picked (only without socket inheritance).
            self._bind_retries_left -= 1
            self._launch()
            return
        with self._lock:
            self._standby.discard()  # it holds the socket (and the lock) too
        self._close_listener()  # requests must be refused, not left waiting on nobody
        # A restart that failed keeps the folder: the next edit brings the server back.
        self._forget_process(release_lock=not self._restarting)
        raise exited_before_ready(code, self.config_path, self.log_file, lines[-_ERROR_LOG_LINES:])

    def _mark_ready(self) -> None:
        if self.startup_seconds is None:
            self.startup_seconds = time.monotonic() - self._started_at
            # Without the note the server still works; other copies just cannot find it.
            if self._server_lock is not None:
                with contextlib.suppress(ServerLockError):
                    self._server_lock.record(
                        url=self.url, server_pid=self.pid, config=self.config_path
                    )

    def _raise_timeout(self, timeout: float) -> None:
        lines = self.log_lines(_ERROR_LOG_LINES)
        self.stop()
        raise EmbeddedServerError(
            f"the agent server was not ready after {timeout:g} s (full log in {self.log_file})",
            lines,
        )

    # -- stop ----------------------------------------------------------------------------

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server: SIGTERM, wait up to ``timeout`` seconds, then SIGKILL.

        Safe to call any number of times, and when the server never started.
        """
        with self._lock:
            self._stopped = True
            # First: it holds the data folder's lock too.
            self._standby.discard()
            self._close_listener()
            process = self._process
            if process is None:
                return
            launch.end_server(process, timeout)
            self._forget_process()

    def restart(
        self,
        *,
        python: str | None = None,
        config: LangGraphConfig | None = None,
        timeout: float = DEFAULT_READY_TIMEOUT,
    ) -> None:
        """Stop the server process and start a new one, on ``python`` and ``config`` (as
        live reload read it after a save) if given; blocks until it answers.

        The old process shuts down gracefully, so the runtime saves its data and the new
        one loads it: threads, runs and assistants survive. The data folder stays locked
        throughout, and the server keeps its port (its socket, with ``hold_listener``).
        Raises `EmbeddedServerError` when the new process does not come up, or when
        ``stop()`` was called (a reload that ends after the app quit starts nothing).
        """
        with self._lock:
            if self._stopped:
                raise EmbeddedServerError("the agent server was stopped")
            if python is not None:
                self.python = python
            if config is not None:
                self._config = config
            process = self._process
            if process is not None:
                launch.end_server(process, 10.0)
                self._forget_process(release_lock=False)
            if self._listener is None and self._port is not None:
                self._requested_port = self._port  # bind the same port again: the URL stays
            self.startup_seconds = None
            self._started_at = time.monotonic()
            self._bind_retries_left = 0
            try:
                self._launch()
            except BaseException:
                self._release_lock()
                raise
            atexit.register(self.stop)
        self._restarting = True
        try:
            self.wait_until_ready(timeout)
        finally:
            self._restarting = False

    def _close_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()

    async def stop_async(self, timeout: float = 10.0) -> None:
        await asyncio.to_thread(self.stop, timeout)

    def _forget_process(self, *, release_lock: bool = True) -> None:
        process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        self._log.join(timeout=2.0)
        if release_lock:
            self._release_lock()  # the child has exited: its data is saved
        atexit.unregister(self.stop)

    # -- context managers ----------------------------------------------------------------

    def __enter__(self) -> Self:
        self.start()
        try:
            self.wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        self.start()
        try:
            await self.wait_until_ready_async()
        except BaseException:
            await self.stop_async()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop_async()

    def __repr__(self) -> str:
        state = f"running at {self.url}" if self.is_running else "stopped"
        return f"<EmbeddedAgentServer {self.config_path} {state}>"
