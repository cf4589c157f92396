"""Entry point of the embedded agent server process: ``python -m agent_tui.local.server_process``.

`EmbeddedAgentServer` starts this in a new session with the per-config data folder as its
working folder (the in-memory runtime writes ``./.langgraph_api/``). It runs the real
langgraph-api server through ``langgraph_api.cli.run_server``, like ``langgraph dev`` but
with no reload, browser, tunnel or version check.

It must never outlive agent-tui, even when agent-tui is killed with SIGKILL:

- agent-tui holds the write end of this process's stdin. A watchdog thread reads stdin;
  end-of-file means agent-tui is gone, and the server shuts down (gracefully, so the
  runtime saves its data, with a hard exit after a grace period).
- On Linux, ``PR_SET_PDEATHSIG`` also delivers SIGTERM when the parent dies. Only when the
  parent started us from its main thread: the kernel ties the signal to the thread that
  forked, and a worker thread that ends would stop a healthy server.

With ``--standby`` it is started ahead of a live reload (`standby`): it does the slow
imports, waits for ``go`` on stdin (exiting at once on end-of-file), and only then reads
the config and starts as above.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from agent_tui.local.durable_commits import LOADED_AT_IMPORT, newest_commits, restore_committed
from agent_tui.local.durable_runtime import DURABLE_CHECKPOINTER, make_runtime_durable
from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.queue_wakeup import wake_queue_on_new_runs
from agent_tui.local.standby import wait_for_go

logger = logging.getLogger("agent_tui.local.server_process")

EXIT_BAD_CONFIG = 2
EXIT_PORT_BUSY = 3
_PR_SET_PDEATHSIG = 1


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.standby:
        # A prewarmed server (`standby`): the slow imports now, the rest once told to go.
        if args.die_with_parent:
            _set_parent_death_signal(args.parent_pid)
        wait_for_go()
    threading.Thread(
        target=_exit_when_parent_goes, args=(args.grace,), name="parent-watchdog", daemon=True
    ).start()
    if args.die_with_parent and not args.standby:
        _set_parent_death_signal(args.parent_pid)

    try:
        config = load_langgraph_config(args.config)
    except LangGraphConfigError as exc:
        print(f"agent-tui: {exc}", file=sys.stderr, flush=True)
        return EXIT_BAD_CONFIG
    if args.fd is None and (problem := _cannot_bind(args.host, args.port)):
        # Seconds before uvicorn would find out (after loading the graphs): fail now, so
        # agent-tui retries on another port at once. The same words as uvicorn's error.
        print(f"agent-tui: cannot listen on {args.host}:{args.port}: {problem}", flush=True)
        return EXIT_PORT_BUSY

    # As `langgraph dev` does with its working folder: the project folder and its local
    # dependency folders are importable.
    for folder in [config.folder, *config.dependencies]:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))

    # A slow import (about a second), so after the cheap checks. It also sets up logging.
    from langgraph_api import cli

    for warning in config.warnings:
        logger.warning(warning)

    # The runtime reads this when imported, and the queue patch imports it before
    # `run_server` sets the variable (to the same value).
    os.environ["LANGGRAPH_DISABLE_FILE_PERSISTENCE"] = str(config.disable_persistence).lower()
    durable = not config.disable_persistence and not args.volatile
    # Acknowledged writes survive a crash (`durable_runtime`). The last commits go where
    # the runtime loads its stores from, before it is imported (it loads some then).
    generations = newest_commits() if durable else {}
    if durable:
        restore_committed(LOADED_AT_IMPORT)
    wake_queue_on_new_runs()
    options = dict(config.options)
    if durable:
        make_runtime_durable(generations)
        # A project that names its own checkpointer keeps it.
        options.setdefault("checkpointer", {"path": DURABLE_CHECKPOINTER})

    # `run_server` probes the port and, finding it busy, silently serves on another one,
    # where agent-tui would never look. Serve on the given port or fail (and be retried).
    cli._resolve_port = lambda host, port: port
    extra: dict[str, Any] = {}
    if args.fd is not None:
        # uvicorn serves on the socket agent-tui bound and listens on (the port is busy,
        # with us), so no other process can take the port between choosing and serving.
        extra["fd"] = args.fd

    cli.run_server(
        host=args.host,
        port=args.port,
        reload=False,
        graphs=config.graphs,
        n_jobs_per_worker=args.jobs,
        open_browser=False,
        tunnel=False,
        env=config.env,
        disable_persistence=config.disable_persistence,
        allow_blocking=args.allow_blocking,
        # Request lines (`POST /runs/wait 200 …`) are logged by this logger at INFO, as
        # `langgraph dev --server-log-level INFO` does; they go to the log file (and, under
        # `agent-tui serve`, to stderr).
        server_level="INFO",
        # Open streams must not hold up shutdown: the data is only saved after them.
        timeout_graceful_shutdown=max(1, int(args.grace / 2)),
        **options,
        **extra,
    )
    return 0


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m agent_tui.local.server_process")
    parser.add_argument("--config", required=True, type=Path, help="langgraph.json")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--fd", type=int, help="an inherited listening socket to serve on")
    parser.add_argument("--jobs", type=int, default=10, help="concurrent runs")
    parser.add_argument("--parent-pid", type=int, default=os.getppid())
    parser.add_argument("--die-with-parent", action="store_true")
    parser.add_argument("--allow-blocking", action="store_true")
    parser.add_argument("--grace", type=float, default=8.0, help="seconds to shut down")
    parser.add_argument(
        "--volatile",
        action="store_true",
        help="keep the runtime's own saving (every 10 s, checkpoints at exit): benchmarks only",
    )
    parser.add_argument(
        "--standby", action="store_true", help="import the slow modules, then wait for 'go'"
    )
    return parser.parse_args(argv)


def _cannot_bind(host: str, port: int) -> str | None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            in_use = (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE))
            return "address already in use" if exc.errno in in_use else str(exc)
    return None


def _exit_when_parent_goes(grace: float) -> None:
    # The raw descriptor, not `sys.stdin.buffer`: a read blocked in the buffered reader
    # holds its lock, and when the server stops (or fails to start) while we wait, the
    # interpreter's shutdown cannot take that lock and aborts ("Fatal Python error:
    # _enter_buffered_busy", exit code -6).
    try:
        while os.read(0, 65536):
            pass  # Nothing is ever sent; reading only waits for end-of-file.
    except OSError:
        pass
    # Nobody reads our output any more: writing to the dead pipe would only raise.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    _request_shutdown()
    # A daemon timer: it must not keep a cleanly stopped process alive until it fires.
    deadline = threading.Timer(grace, os._exit, args=(1,))
    deadline.daemon = True
    deadline.start()


def _request_shutdown() -> None:
    # SIGTERM lets uvicorn shut down cleanly, and the runtime flushes its files on the way.
    # We lead our own process group, so this also reaches processes the graphs started.
    if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGTERM)
    else:
        os.kill(os.getpid(), signal.SIGTERM)


def _set_parent_death_signal(parent_pid: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    # The parent may have died before the signal was armed.
    if os.getppid() != parent_pid:
        _request_shutdown()


if __name__ == "__main__":
    sys.exit(main())
