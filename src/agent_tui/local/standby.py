"""Prewarmed children: a server or a graph check started ahead of time, told when to go.

Most of a reload is spent importing LangGraph, LangChain and the web server (seconds,
even from cached bytecode). Live reload therefore keeps one *standby* of the graph check
and one of the server: a child started with ``--standby`` with the command line,
interpreter, environment and inherited descriptors the real one would get. It imports
`PREWARMED`, then waits on stdin for the line ``go``; only then does it read the project
(the config, the graphs), so what it runs is the code as it is at ``go``.

It also imports the third-party modules the project's graphs imported at the last graph
check (`imports`), sent on a line ``import NAME NAME …`` before ``go``: a reload then
imports only the project's own files, however heavy its packages (an SDK, an agent
framework). A module that no longer imports, or that the project dropped, costs nothing
more than its import attempt.

A server standby may also be told ``load`` once the files have settled (live reload sends
it as the graph check starts): it then runs the project's graph files (`on_load`) while
the check runs and the old server stops, so its start does not. A standby told to load
holds that moment's code: it serves the next ``go`` or is discarded, never a later one.

A standby never outlives its parent: end-of-file on stdin before ``go`` (the parent
stopped it, or died, even by SIGKILL) makes it exit at once, and it runs in a session of
its own, so `Standby.discard` kills it with whatever it started.

Child side: `wait_for_go`. Parent side: `Standby`.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import queue
import re
import subprocess
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import IO, Any, Generic, Protocol, TypeVar

from agent_tui.local.child_processes import kill_group


class StandbyProcess(Protocol):
    """What a standby's process must answer (a ``subprocess.Popen[bytes]`` does)."""

    @property
    def pid(self) -> int: ...
    @property
    def stdin(self) -> IO[bytes] | None: ...
    @property
    def stdout(self) -> IO[bytes] | None: ...
    @property
    def stderr(self) -> IO[bytes] | None: ...
    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def kill(self) -> None: ...


P = TypeVar("P", bound=StandbyProcess)

PREWARMED = (
    "langchain_core.messages",
    "langchain_core.runnables",
    "langchain_core.tracers",
    "langgraph.graph",
    "langsmith.run_trees",
    "httpx",
    "orjson",
    "structlog",
    "starlette.applications",
    "uvicorn",
    # What langgraph-api's server imports from other packages (~0.15 s).
    "grpc",
    "google.protobuf.struct_pb2",
    "opentelemetry.sdk.metrics",
    "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "prometheus_client",
    "sse_starlette",
    "yaml",
)
"""The slow third-party imports of a server or a graph check. Not ``langgraph_api``: its
settings are read from the environment at import, and the server sets it up first."""

SERVER_PREWARMED = (
    "cloudpickle",
    "croniter",
    "dateutil.relativedelta",
    "dateutil.tz",
    "jsonschema_rs",
    "truststore",
    "sqlite3",
    "cProfile",
    "pstats",
    "google.protobuf.json_format",
    "grpc_health.v1.health_pb2_grpc",
    "langgraph_grpc_common.checkpointer",
    "langgraph_grpc_common.conversion",
    "langgraph_grpc_common.serde",
    "langgraph_grpc_common.proto.core_api_pb2_grpc",
    "langgraph_grpc_common.proto.runner_pb2_grpc",
    "langgraph_grpc_common.proto.store_pb2_grpc",
    "langgraph_license.validation",
    "langgraph_sdk.runtime",
    "langgraph.cache.memory",
    "langgraph.checkpoint.memory",
    "langgraph.store.base.batch",
    "langgraph.store.memory",
    "opentelemetry.exporter.prometheus",
    "prometheus_client.core",
    "starlette.middleware.authentication",
    "starlette.middleware.base",
    "starlette.middleware.cors",
    "starlette.schemas",
    "starlette.staticfiles",
)
"""The rest of what langgraph-api's server imports from other packages (none reads the
environment at import), for a server standby only: 0.1-0.2 s of a reload's start on a
loaded 2-core machine."""

GO = b"go\n"
LOAD = b"load\n"
IMPORT = b"import "
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_NEVER = ("langgraph_api", "langgraph_runtime", "agent_tui")
"""Never imported ahead: they read their settings, or the data, when imported."""
MAX_IMPORTS = 5000


def wait_for_go(prewarmed: Iterable[str] = (), on_load: Callable[[], None] | None = None) -> None:
    """In a standby: import `PREWARMED`, ``prewarmed`` and the ``import`` lines' modules,
    call ``on_load`` at a ``load`` line (ignored without it), then return once ``go``
    arrives on stdin.

    Any other line, or end-of-file (the parent discarded this process, or died), ends
    the process at once, even in the middle of the imports.
    """
    lines: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
    threading.Thread(target=_read_lines, args=(lines,), name="standby-go", daemon=True).start()
    _import_quietly(PREWARMED)
    _import_quietly(prewarmed)
    _settle(lines)
    while (names := lines.get()) is not None:
        if names is _LOAD_LINE:
            if on_load is not None:
                on_load()
        else:
            _import_quietly(names)
        _settle(lines)


def _settle(lines: queue.SimpleQueue[list[str] | None]) -> None:
    """While nothing else is asked: a full collection now, and what is left (modules,
    classes, the graphs: kept for the process's life) is left out of later ones. Else the
    start after ``go`` ran one over it all (0.1-0.3 s on a loaded 2-core machine)."""
    if lines.empty():
        gc.collect()
        gc.freeze()


_LOAD_LINE: list[str] = []
"""What `_read_lines` queues for a ``load`` line (told apart by identity)."""


def _import_quietly(names: Iterable[str]) -> None:
    for name in names:
        # A module missing from the project's environment is imported (and reported)
        # where it is needed, as without a standby.
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def _read_lines(lines: queue.SimpleQueue[list[str] | None]) -> None:
    # Nothing follows ``go`` but end-of-file, so reading in chunks takes nothing from
    # the caller's own watch of stdin.
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = b""
            with contextlib.suppress(OSError):
                chunk = os.read(0, 1 << 16)
            if not chunk:
                os._exit(0)
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        if line + b"\n" == GO:
            lines.put(None)
            return
        if line + b"\n" == LOAD:
            lines.put(_LOAD_LINE)
            continue
        if not line.startswith(IMPORT):
            os._exit(0)
        lines.put(prewarmable(line[len(IMPORT) :].decode(errors="replace").split()))


def prewarmable(names: Iterable[str]) -> list[str]:
    """The module names of ``names`` a standby may import ahead (see `_NEVER`)."""
    return [
        name
        for name in names
        if _MODULE.fullmatch(name) and not name.split(".")[0].startswith(_NEVER)
    ][:MAX_IMPORTS]


def _popen(command: list[str], options: Mapping[str, Any]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, stdin=subprocess.PIPE, **options)


class Standby(Generic[P]):
    """One prewarmed child of the parent side, for the launch described by ``key``."""

    def __init__(self, key: Hashable, process: P) -> None:
        self.key = key
        self.process = process
        self.loaded = False
        """Told ``load``: it holds the code of that moment (see the module docstring)."""

    @staticmethod
    def spawn(
        key: Hashable, command: Sequence[str], imports: Sequence[str] = (), **options: Any
    ) -> Standby[subprocess.Popen[bytes]] | None:
        """Start ``command`` (which must take ``--standby``) with a pipe as stdin and the
        ``Popen`` options of the real launch (a new session, so `discard` ends all it
        starts), and send it ``imports`` to import ahead; None if it cannot start (the
        next launch is then a cold one)."""
        return Standby.spawn_with(_popen, key, command, imports, **options)

    @staticmethod
    def spawn_with(
        start: Callable[[list[str], Mapping[str, Any]], P],
        key: Hashable,
        command: Sequence[str],
        imports: Sequence[str] = (),
        **options: Any,
    ) -> Standby[P] | None:
        """`spawn`, started by ``start`` (given the command line and the options) rather
        than ``Popen``: a server's standby is started as its server would be."""
        try:
            process = start([*command, "--standby"], options)
        except OSError:
            return None
        standby = Standby(key, process)
        if names := prewarmable(imports):
            assert process.stdin is not None
            try:
                process.stdin.write(IMPORT + " ".join(names).encode() + b"\n")
                process.stdin.flush()
            except OSError:
                standby.discard()
                return None
        return standby

    @property
    def pid(self) -> int:
        return self.process.pid

    def load(self) -> None:
        """Tell it to run the project's files now (a server standby: `wait_for_go`)."""
        self.loaded = True
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(LOAD)
            self.process.stdin.flush()
        except OSError:
            pass  # it is gone: `go` finds out and the launch is a cold one

    def go(self, key: Hashable) -> P | None:
        """The child, told to go, when it was started for ``key`` and still waits; else
        it is discarded and None returned (launch a cold one)."""
        if key != self.key or self.process.poll() is not None:
            self.discard()
            return None
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(GO)
            self.process.stdin.flush()
        except OSError:
            self.discard()
            return None
        return self.process

    def discard(self) -> None:
        """Kill the child and its process group, and reap it."""
        process = self.process
        kill_group(process.pid, process.kill)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5.0)
