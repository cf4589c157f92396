"""Entry point of the local agent server process: ``python -m agent_tui.server.main``.

The app's supervisor (`local.supervisor.embedded_server`) starts this in a new session with the
per-config data folder as its working folder (the in-memory runtime writes
``./.langgraph_api/``). It runs the real langgraph-api server through
``langgraph_api.cli.run_server``, like ``langgraph dev`` but with no reload, browser, tunnel
or version check, and makes it durable through three of langgraph-api's public settings
(`durable_options`): every write it acknowledges survives ``kill -9``.

It must never outlive agent-tui, even when agent-tui is killed with SIGKILL:

- agent-tui holds the write end of this process's stdin. A watchdog thread reads stdin;
  end-of-file means agent-tui is gone, and the server shuts down (gracefully, with a hard
  exit after a grace period).
- On Linux, ``PR_SET_PDEATHSIG`` also delivers SIGTERM when the parent dies. Only when the
  parent started us from its main thread: the kernel ties the signal to the thread that
  forked, and a worker thread that ends would stop a healthy server.

The data folder's lock (`local.supervisor.lock`) is inherited from the supervisor and held
until this process exits, so a server started after its parent was killed waits for this
one to be gone before it reads the folder.

With ``--standby`` it is started ahead of a live reload (`local.standby`): it does the slow
imports, waits for ``go`` on stdin (exiting at once on end-of-file), and only then reads
the config and starts as above.
"""

from __future__ import annotations

import argparse
import errno
import functools
import logging
import os
import socket
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

from agent_tui.local.disk_problem import DISK_PROBLEM
from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.lifeline import exit_when_parent_goes, set_parent_death_signal
from agent_tui.local.standby import SERVER_PREWARMED, wait_for_go

# `records` before langgraph-api: it takes the plain os functions that langgraph-api's
# blocking-call guard wraps later.
from agent_tui.server import graph_files, names, records
from agent_tui.server.served_url import correct_served_url
from agent_tui.server.supported import unsupported_versions

logger = logging.getLogger("agent_tui.server.main")

EXIT_BAD_CONFIG = 2
EXIT_PORT_BUSY = 3
EXIT_UNSUPPORTED = 4
EXIT_NO_ROOM = 5


KEEP_ALIVE = 30
"""Seconds uvicorn keeps an idle connection open (uvicorn's default: 5)."""


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.standby:
        # A prewarmed server (`standby`): the slow imports now, the rest once told to go.
        if args.die_with_parent:
            set_parent_death_signal(args.parent_pid)
        # Told ``load`` (live reload, as its check starts): the graph files run now.
        wait_for_go(SERVER_PREWARMED, on_load=functools.partial(graph_files.preload, args.config))
    threading.Thread(
        target=exit_when_parent_goes, args=(args.grace,), name="parent-watchdog", daemon=True
    ).start()
    if args.die_with_parent and not args.standby:
        set_parent_death_signal(args.parent_pid)

    if problem := unsupported_versions():
        print(f"agent-tui: {problem}", file=sys.stderr, flush=True)
        return EXIT_UNSUPPORTED
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

    graph_files.add_project_paths(config)

    durable = not config.disable_persistence and not args.volatile
    # Before langgraph-api is imported: its runtime loads some of its files at import.
    if durable and (code := _prepare_data_folder()) is not None:
        return code

    # A slow import (about a second), so after the cheap checks. It also sets up logging.
    from langgraph_api import cli

    from agent_tui.server import upstream

    for warning in config.warnings:
        logger.warning(warning)

    options = dict(config.options)
    if durable:
        if gone := upstream.missing():
            print(
                f"agent-tui: this langgraph-api lacks what the local server needs: "
                f"{', '.join(gone)}",
                file=sys.stderr,
                flush=True,
            )
            return EXIT_UNSUPPORTED
        options = durable_options(options)
    elif args.volatile and "app" not in dict(options.get("http") or {}):
        # The runtime as shipped, but runs start at once as on the durable server.
        os.environ[names.VOLATILE] = "1"
        options["http"] = {**dict(options.get("http") or {}), "app": names.APP}

    # With agent-tui's socket (``--fd``), ``port=0`` keeps `run_server`'s port probe (which
    # would find that socket busy and silently pick another port) from mattering; the URL
    # it builds then gets the real port from `served_url`.
    where: dict[str, Any] = {"port": args.port}
    if args.fd is not None:
        where = {"port": 0, "fd": args.fd}
        with socket.socket(fileno=os.dup(args.fd)) as held:
            correct_served_url(held.getsockname()[1])

    cli.run_server(
        host=args.host,
        **where,
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
        # Open streams must not hold up shutdown.
        timeout_graceful_shutdown=max(1, int(args.grace / 2)),
        # Idle connections are kept well past the client's 2 s (`client.transport.LIMITS`):
        # at uvicorn's 5 s, a loop stalled a few seconds (a loaded machine) closed a
        # connection a request had just been sent on, and the client saw no answer.
        timeout_keep_alive=KEEP_ALIVE,
        **options,
    )
    return 0


def _prepare_data_folder() -> int | None:
    """Room to write, damage dealt with (`damage`), the store's saved files put back; an
    exit code when the server cannot start."""
    from agent_tui.server import damage

    try:
        os.makedirs(names.DATA_FOLDER, exist_ok=True)
        records.room_check()
    except OSError as exc:
        # The runtime would fail later, with a traceback: say what to do instead.
        print(
            f"{DISK_PROBLEM} in {os.getcwd()}: {exc.strerror or exc}; free some space, "
            "then start it again",
            file=sys.stderr,
            flush=True,
        )
        return EXIT_NO_ROOM
    damage.check_databases(after_crash=damage.mark_running())
    records.restore(early=True)
    return None


def durable_options(options: dict[str, Any]) -> dict[str, Any]:
    """langgraph.json's server settings, with agent-tui's durable parts added:

    - ``checkpointer``: langgraph's SQLite saver (`checkpointer`), unless the project
      names its own;
    - ``store.path``: langgraph's SQLite store (`store`), with the project's ``index`` and
      ``ttl``, unless the project names its own (or asks for semantic search where
      sqlite3 cannot load sqlite-vec: then the runtime's own store, saved with its records);
    - ``http.app``: `app`, whose middleware saves the runtime's records before an answer
      acknowledges them; a project's own app is loaded by it and keeps its routes,
      middleware and lifespan.
    """
    durable = dict(options)
    durable.setdefault("checkpointer", {"backend": "custom", "path": names.CHECKPOINTER})
    kept_store = dict(durable.get("store") or {})
    if kept_store.get("index") and not hasattr(sqlite3.Connection, "enable_load_extension"):
        # Vectors in SQLite need sqlite-vec, an extension this Python's sqlite3 cannot
        # load: the runtime's own store keeps them (saved with its records, by `records`).
        logger.info("agent-tui: semantic search in the runtime's own store (no sqlite-vec)")
    else:
        kept_store.setdefault("path", names.STORE)
    durable["store"] = kept_store
    http = dict(durable.get("http") or {})
    if "app" in http:
        os.environ[names.PROJECT_APP] = http["app"]
    http["app"] = names.APP
    durable["http"] = http
    return durable


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m agent_tui.server.main")
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
        help="the runtime as shipped (saved every 10 s and at exit): benchmarks only",
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


if __name__ == "__main__":
    sys.exit(main())
