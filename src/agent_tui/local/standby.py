"""Prewarmed children: a server or a graph check started ahead of time, told when to go.

Most of a reload is spent importing LangGraph, LangChain and the web server (seconds,
even from cached bytecode). Live reload therefore keeps one *standby* of the graph check
and one of the server: a child started with ``--standby`` with the command line,
interpreter, environment and inherited descriptors the real one would get. It imports
`PREWARMED`, then waits on stdin for the line ``go``; only then does it read the project
(the config, the graphs), so what it runs is the code as it is at ``go``.

A standby never outlives its parent: end-of-file on stdin before ``go`` (the parent
stopped it, or died, even by SIGKILL) makes it exit at once, and it runs in a session of
its own, so `Standby.discard` kills it with whatever it started.

Child side: `wait_for_go`. Parent side: `Standby`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import threading
from collections.abc import Hashable, Sequence
from typing import Any

from agent_tui.local.child_processes import kill_group

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
)
"""The slow third-party imports of a server or a graph check. Not ``langgraph_api``: its
settings are read from the environment at import, and the server sets it up first."""

GO = b"go\n"


def wait_for_go() -> None:
    """In a standby: import `PREWARMED`, then return once ``go`` arrives on stdin.

    Anything else, or end-of-file (the parent discarded this process, or died), ends the
    process at once, even in the middle of the imports. Reads stdin byte by byte, so
    what follows ``go`` (only end-of-file) is left for the caller's own watch.
    """
    told = threading.Event()
    threading.Thread(target=_read_go, args=(told,), name="standby-go", daemon=True).start()
    for name in PREWARMED:
        # A module missing from the project's environment is imported (and reported)
        # where it is needed, as without a standby.
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    told.wait()


def _read_go(told: threading.Event) -> None:
    line = b""
    with contextlib.suppress(OSError):
        while len(line) < len(GO) and (byte := os.read(0, 1)):
            line += byte
    if line != GO:
        os._exit(0)
    told.set()


class Standby:
    """One prewarmed child of the parent side, for the launch described by ``key``."""

    def __init__(self, key: Hashable, process: subprocess.Popen[bytes]) -> None:
        self.key = key
        self.process = process

    @classmethod
    def spawn(cls, key: Hashable, command: Sequence[str], **options: Any) -> Standby | None:
        """Start ``command`` (which must take ``--standby``) with a pipe as stdin and the
        ``Popen`` options of the real launch (a new session, so `discard` ends all it
        starts); None if it cannot start (the next launch is then a cold one)."""
        try:
            process = subprocess.Popen([*command, "--standby"], stdin=subprocess.PIPE, **options)
        except OSError:
            return None
        return cls(key, process)

    @property
    def pid(self) -> int:
        return self.process.pid

    def go(self, key: Hashable) -> subprocess.Popen[bytes] | None:
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
