"""`agent-tui serve [--config FILE] [--host H] [--port N] [--no-reload]`: the project's
local agent server, headless, like ``langgraph dev``.

The same embedded server the app starts, on the same data folder (so threads made here
show in the app and back), and the app opened on the same project connects to it instead
of starting its own. The project's environment is built first when its dependencies
changed (uv's lines on stderr). Once ``/ok`` answers, the URL is the one line on stdout,
for scripts; the server's log (with its request lines) goes to stderr, and so do live
reloads (`live_reload`; off with ``--no-reload``). Ctrl+C or SIGTERM stops it gracefully,
and leaves no process behind. A server that ends on its own (a crash, ``kill -9``) is
started again on the same port and data, as the app does; every write it answered is kept.

A project broken at start (its graphs do not import, its environment does not build) is
handled as a broken reload is: where it broke is said (``agent.py:17: SyntaxError …``),
the project is watched, and the save that fixes it starts the server (with
``--no-reload``, or for the demo, it exits 1 instead).

Exit codes: 0 after a requested stop, 1 when the server cannot start or run (another one
already runs for the project, the port is busy, a broken project with ``--no-reload``, or
a stop before a broken project was fixed), 2 for a bad config.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import signal
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from agent_tui.local import (
    DEFAULT_READY_TIMEOUT,
    DEMO_CONFIG,
    EmbeddedAgentServer,
    EmbeddedServerError,
    LangGraphConfig,
    LangGraphConfigError,
    ServerAlreadyRunning,
    default_langgraph_config,
    load_langgraph_config,
    local_server_data_dir,
    wait_for_running_server,
)
from agent_tui.local.live_reload.broken_start import FixEvent, FixWatch, find_graph_problems
from agent_tui.local.live_reload.reloader import LiveReload, ReloadEvent
from agent_tui.local.project_env.environment import (
    BuildProgress,
    EnvironmentBuildError,
    ensure_environment,
)
from agent_tui.local.supervisor.errors import ended_how
from agent_tui.local.supervisor.lock import running_server
from agent_tui.local.supervisor.log import LineListener
from agent_tui.text.sanitize import clean_text

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_CONFIG = 2
_BROKEN = -1  # the project did not start; with reload, it is watched for a fix

_PROG = "agent-tui serve"
_STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
_CRASH_CHECK_SECONDS = 0.5
_QUICK_ENDS = 3
"""Restarts in a row of a server that ended within `_QUICK_END_SECONDS` of its start."""
_QUICK_END_SECONDS = 10.0

T = TypeVar("T")


def start_project_server(
    config: LangGraphConfig,
    *,
    host: str,
    port: int | None,
    reload: bool,
    on_line: LineListener,
    python: str | None = None,
) -> EmbeddedAgentServer:
    """Create and start (not wait for) the server of the project ``config`` (its
    ``langgraph.json`` as read for this start), on ``python`` (the project's environment).

    Raises `ServerAlreadyRunning` when another process runs it, `EmbeddedServerError`
    when it cannot start. ``reload``: it will be restarted when the project changes, so
    it keeps its listening socket for that.
    """
    from agent_tui.local.trace_collector.wiring import tracing_environment

    server = EmbeddedAgentServer(
        config,
        data_dir=local_server_data_dir(config.path),
        host=host,
        port=port,
        on_line=on_line,
        python=python,
        hold_listener=reload,
        # Every model and tool call of its runs, to agent-tui's own collector.
        env=tracing_environment(config.env),
    )
    server.start()
    return server


def serve_command(args: argparse.Namespace) -> int:
    config: Path = args.config if args.config is not None else default_langgraph_config(Path.cwd())
    config = config.expanduser().resolve()
    try:
        load_langgraph_config(config)
    except LangGraphConfigError as error:
        return _fail(str(error), EXIT_BAD_CONFIG)
    try:
        return asyncio.run(_serve(config, args.host, args.port, args.reload))
    except KeyboardInterrupt:  # before the handlers were in place
        return EXIT_OK


async def _serve(config: Path, host: str, port: int | None, reload: bool) -> int:
    stop = asyncio.Event()
    cancel_build = threading.Event()  # the same request, for the build thread: uv is killed

    def request_stop() -> None:
        stop.set()
        cancel_build.set()

    loop = asyncio.get_running_loop()
    for name in _STOP_SIGNALS:
        if hasattr(signal, name):  # Windows has neither SIGHUP nor loop signal handlers
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(getattr(signal, name), request_stop)

    # With reload, a project broken at start is watched as a broken reload is: where
    # it broke is said, and the next save that may fix it starts the server again.
    watch_fixes = reload and config != DEMO_CONFIG
    while True:
        started = await _start(config, host, port, reload, stop, cancel_build)
        if started == _BROKEN:
            if not watch_fixes or not await _wait_for_fix(config, stop, graphs=False):
                return EXIT_FAILED
            continue
        if isinstance(started, int):
            return started
        server, launched = started
        served = await _serve_started(config, server, launched, stop, watch_fixes)
        if served != _BROKEN:
            return served
        problems = await asyncio.to_thread(
            find_graph_problems, server.config, server.python, cancel_build
        )
        for problem in problems:
            _copy_to_stderr(f"{_PROG}: {problem}")
        if not await _wait_for_fix(config, stop, graphs=bool(problems)):
            return EXIT_FAILED


async def _serve_started(
    config: Path,
    server: EmbeddedAgentServer,
    launched: float,
    stop: asyncio.Event,
    watch_fixes: bool,
) -> int:
    """Serve until a stop; `_BROKEN` when the server did not start and the project is to
    be watched for a fix (the server is stopped by then)."""
    watcher: LiveReload | None = None
    try:
        if not await _until_ready(server, stop):
            return _BROKEN if watch_fixes else EXIT_FAILED
        if not stop.is_set():
            if watch_fixes:  # the demo is agent-tui's code, not yours
                watcher = LiveReload(server, _report_reload)
                await asyncio.to_thread(_watch, watcher, launched)
            # Once the URL is out, the server answers and (with reload) edits are seen.
            print(server.url, flush=True)
            # With reload, a server that a broken edit took down comes back with the next
            # edit; one that ended on its own (a crash, kill -9) is started again at once.
            return await _keep_running(server, stop, reloading=watcher is not None)
        return EXIT_OK
    finally:
        if watcher is not None:
            await asyncio.to_thread(watcher.stop)
        await server.stop_async()  # gracefully: the runtime saves its data on the way


async def _wait_for_fix(config: Path, stop: asyncio.Event, *, graphs: bool) -> bool:
    """Watch the project until a save may have fixed it (True: start again) or a stop
    is asked for (False). `graphs`: the graphs did not import, so each save is checked
    first and only one after which they import starts the server again."""
    loop = asyncio.get_running_loop()
    retry = asyncio.Event()

    def heard(event: FixEvent) -> None:
        if event.kind == "broken":
            line = f"{_PROG}: still broken: {event.message}"
        else:
            line = f"{_PROG}: {event.message}"
        loop.call_soon_threadsafe(_copy_to_stderr, line)
        if event.kind == "retry":
            loop.call_soon_threadsafe(retry.set)

    fix = FixWatch(config, heard, check_graphs_first=graphs)
    await asyncio.to_thread(fix.start)
    try:
        if not await asyncio.to_thread(fix.wait_ready):
            _copy_to_stderr(f"{_PROG}: cannot watch the project for a fix")
            return False
        _copy_to_stderr(f"{_PROG}: waiting for a fix: save the project to try again (ctrl+c stops)")
        stopping = asyncio.create_task(stop.wait())
        retrying = asyncio.create_task(retry.wait())
        await asyncio.wait({stopping, retrying}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        retrying.cancel()
        return retry.is_set() and not stop.is_set()
    finally:
        await asyncio.to_thread(fix.stop)


async def _start(
    config: Path,
    host: str,
    port: int | None,
    reload: bool,
    stop: asyncio.Event,
    cancel_build: threading.Event,
) -> tuple[EmbeddedAgentServer, float] | int:
    """The started server and when it was launched (a `time.time()`: it reads the
    project from then on), or the exit code (after saying why) when there is none."""
    other = running_server(local_server_data_dir(config))
    if other is not None and other.url is not None:  # say so before building anything
        return _fail(str(ServerAlreadyRunning(other, config)), EXIT_FAILED)
    echo = _BuildEcho()
    try:
        # Read once for this start (again at the next, after a save): the environment and
        # the server are given it.
        loaded = load_langgraph_config(config)
        python = await asyncio.to_thread(ensure_environment, loaded, echo, cancel=cancel_build)
    except (LangGraphConfigError, EnvironmentBuildError) as error:
        if stop.is_set():
            return EXIT_OK  # stopped while building: uv was stopped with it
        if isinstance(error, EnvironmentBuildError):
            for line in error.lines[-40:]:
                if line not in echo.shown:  # uv's lines were copied as they came
                    _copy_to_stderr(line)
            _fail(f"the project's environment could not be built: {error.reason}", 1)
            return _BROKEN
        return _fail(str(error), EXIT_BAD_CONFIG)
    for _ in range(3):  # the data folder may change hands while we look
        launched = time.time()
        try:
            server = start_project_server(
                loaded,
                host=host,
                port=port,
                reload=reload,
                on_line=_copy_to_stderr,
                python=python,
            )
            return server, launched
        except ServerAlreadyRunning as running:
            other = running.running
            if other.url is not None:
                return _fail(str(running), EXIT_FAILED)
            # Starting (or shutting down): say where it runs once it answers.
            waited = await _unless_stopped(
                wait_for_running_server(other.data_dir, 2 * DEFAULT_READY_TIMEOUT), stop
            )
            if waited is None:
                return EXIT_OK
            try:
                ready = waited.result()
            except TimeoutError as error:
                return _fail(str(error), EXIT_FAILED)
            if ready is not None:
                return _fail(str(ServerAlreadyRunning(ready, config)), EXIT_FAILED)
        except EmbeddedServerError as error:
            busy = "address already in use" in error.reason.lower() or any(
                "address already in use" in line.lower() for line in error.log_lines
            )
            hint = " (pass another --port, or none for a free one)" if port and busy else ""
            return _fail(f"{error.reason}{hint}", EXIT_FAILED)
    return _fail(
        f"the local agent server for {config} keeps changing hands; try again", EXIT_FAILED
    )


async def _until_ready(server: EmbeddedAgentServer, stop: asyncio.Event) -> bool:
    """Wait for ``/ok`` or a stop request; False (after saying why) if it failed."""
    ready = await _unless_stopped(server.wait_until_ready_async(), stop)
    if ready is None:
        return True  # stopped while starting: a requested stop is no failure
    try:
        ready.result()
    except EmbeddedServerError as error:
        # Its log lines are on stderr already.
        _fail(error.reason, EXIT_FAILED)
        return False
    return True


async def _keep_running(
    server: EmbeddedAgentServer, stop: asyncio.Event, *, reloading: bool
) -> int:
    """Until a stop is asked for (`EXIT_OK`): a server that ended on its own (a crash,
    ``kill -9``) is started again on the same port and data, as the app does. One that
    keeps ending within seconds of its start is given up (`EXIT_FAILED`), unless live
    reload is on, which brings it back with the next edit."""
    quick_ends = 0
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), _CRASH_CHECK_SECONDS)
        code = server.crash_code()
        if code is None or stop.is_set():
            continue
        how = ended_how(code)
        if quick_ends >= _QUICK_ENDS:
            if reloading:
                continue  # the next edit restarts it (the watcher says so)
            return _fail(
                f"the agent server {how} again within seconds of its start; given up "
                f"(full log in {server.log_file})",
                EXIT_FAILED,
            )
        _copy_to_stderr(
            f"{_PROG}: the agent server {how}; starting it again on the same port and data "
            "(answered writes are kept)"
        )
        began = time.monotonic()
        try:
            await asyncio.to_thread(server.restart)
        except EmbeddedServerError as error:
            _copy_to_stderr(f"{_PROG}: {error.reason}")
        else:
            _copy_to_stderr(f"{_PROG}: the agent server is running again at {server.url}")
        quick_ends = quick_ends + 1 if time.monotonic() - began < _QUICK_END_SECONDS else 0
    return EXIT_OK


async def _unless_stopped(
    work: Coroutine[Any, Any, T], stop: asyncio.Event
) -> asyncio.Task[T] | None:
    """Run ``work`` until it ends (its finished task) or a stop is requested (None)."""
    task = asyncio.create_task(work)
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if task.done():
        return task
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task  # lets it close its connections
    return None


def _watch(watcher: LiveReload, launched: float) -> None:
    # An edit made since the server started reading the project reloads it too: the
    # watches are in place only after it answers.
    watcher.start(changed_since=launched)
    if not watcher.wait_ready():
        _copy_to_stderr(f"{_PROG}: live reload is off: cannot watch the project ({watcher.error})")


_PACKAGE_LINE = re.compile(r"^ [-+~] \S")
"""uv's line per package installed or removed (`` + httpx==0.28.1``): a real project has
a few hundred; its ``Installed N packages in …`` line says enough."""


class _BuildEcho:
    """The build's lines on stderr as they come (uv's own words, as uv prints them), but
    for its list of packages."""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def __call__(self, progress: BuildProgress) -> None:
        if progress.line:
            self.shown.add(progress.line)
            if not _PACKAGE_LINE.match(progress.line):
                _copy_to_stderr(progress.line)


def _report_reload(event: ReloadEvent) -> None:
    if event.kind == "failed":
        _copy_to_stderr(f"{_PROG}: reload failed: {event.message}")
        for line in event.details[-10:]:
            _copy_to_stderr(line)
        _copy_to_stderr(f"{_PROG}: still serving the previous code; fix it and save to retry")
    else:
        _copy_to_stderr(f"{_PROG}: {event.message}")


def _copy_to_stderr(line: str) -> None:
    sys.stderr.write(clean_text(line) + "\n")
    sys.stderr.flush()


def _fail(message: str, code: int) -> int:
    print(f"{_PROG}: {clean_text(message)}", file=sys.stderr, flush=True)
    return code
