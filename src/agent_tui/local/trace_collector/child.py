"""The trace collector's own process: ``python -m agent_tui.local.trace_collector.child``,
started by `process.CollectorProcess` (never by hand: `agent-tui traces serve` is that).

What passes between it and its parent:

- the command line: the store's folder, its size bound, and its listening socket (on
  POSIX: inherited, ``--fd``, bound by the parent, so the URL is known before this
  process has started) or the host to listen on (elsewhere: it picks a free port);
- stdin: first the key, one line (never on the command line or in the environment, where
  ``ps`` or another process could read it), then nothing: end-of-file means the parent is
  gone, even through ``kill -9``, and the collector stops (`local.lifeline`);
- stdout, one line once the store is open and the socket listens: ``READY_PREFIX`` and
  the port. Anything else it prints (a failure's reason, uvicorn's warnings) the parent
  logs. The key is never printed.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import sys
import threading
from pathlib import Path
from types import FrameType

READY_PREFIX = "trace collector listening on port "
GRACE = 10.0
"""Seconds from the parent's end to a hard exit, if uvicorn has not stopped by then."""


def _read_key() -> str:
    """The first line of stdin, byte by byte: what follows is only waited on (for
    end-of-file) by the lifeline, which reads the raw descriptor too."""
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            break
        line += byte
    return line.decode("utf-8", errors="replace").strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agent_tui.local.trace_collector.child")
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--max-bytes", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--fd", type=int, help="a listening socket, inherited")
    args = parser.parse_args(argv)
    key = _read_key()
    if not key:
        print("no key came on stdin: the parent is gone", file=sys.stderr, flush=True)
        return 1

    from agent_tui.local.lifeline import exit_when_parent_goes
    from agent_tui.local.trace_collector.server import bind_socket, uvicorn_server
    from agent_tui.traces.redaction import Redactor
    from agent_tui.traces.store import DB_FILE, TraceStore

    threading.Thread(
        target=exit_when_parent_goes, args=(GRACE,), name="parent-watchdog", daemon=True
    ).start()
    try:
        store = TraceStore(
            args.folder / DB_FILE, max_bytes=args.max_bytes, redactor=Redactor([key])
        )
    except (OSError, ValueError, sqlite3.Error) as error:
        print(f"cannot open the trace store in {args.folder}: {error}", file=sys.stderr)
        return 1
    try:
        sock = socket.socket(fileno=args.fd) if args.fd is not None else bind_socket(args.host, 0)
    except OSError as error:
        store.close()
        print(f"cannot listen on {args.host}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"{READY_PREFIX}{sock.getsockname()[1]}", flush=True)
    # The lifeline's SIGTERM: uvicorn (in the main thread) takes it while it serves, and
    # raises it again once it has stopped; this handler then ends the process with the
    # store closed, as it does when the signal comes before uvicorn has started.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        uvicorn_server(store, key).run(sockets=[sock])
    finally:
        store.close()
    return 0


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    sys.exit(main())
