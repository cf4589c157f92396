"""`agent-tui control-plane serve` (its arguments are `control_plane_args.py`): the local
control plane, imported when the command runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def serve_command(args: argparse.Namespace) -> int:
    import uvicorn

    from agent_tui.local.control_plane.app import create_app
    from agent_tui.local.control_plane.auth import (
        KEY_ENV,
        KEY_FILE,
        ControlPlaneKeyError,
        control_plane_key,
    )
    from agent_tui.local.control_plane.server import (
        KEEP_ALIVE,
        ControlPlaneRunning,
        bind_socket,
        default_data_dir,
        lock_data_dir,
    )
    from agent_tui.local.supervisor.lock import ServerLockError

    data_dir: Path = args.data_dir or default_data_dir()
    try:
        key = control_plane_key(data_dir)
    except ControlPlaneKeyError as error:
        print(f"agent-tui: {error}", file=sys.stderr)
        return 1
    try:
        lock = lock_data_dir(data_dir)  # held until this process exits
    except (ControlPlaneRunning, ServerLockError) as error:
        print(f"agent-tui: {error}", file=sys.stderr)
        return 1
    try:
        # Bound here: with --port 0 the URL printed is the one that answers.
        sock = bind_socket(args.host, args.port)
    except OSError as error:
        print(
            f"agent-tui: cannot listen on {args.host}:{args.port}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    where = f"${KEY_ENV}" if key and not (data_dir / KEY_FILE).is_file() else data_dir / KEY_FILE
    print(
        f"local control plane on http://{host}:{port} (data in {data_dir}); API key in {where}",
        file=sys.stderr,
        flush=True,
    )
    # The socket listens already: a copy that reads this note and connects waits for it.
    lock.record(url=f"http://{host}:{port}", server_pid=os.getpid(), config=None)
    config = uvicorn.Config(
        create_app(data_dir, key), log_level="info", lifespan="on", timeout_keep_alive=KEEP_ALIVE
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        lock.release()
    return 0
