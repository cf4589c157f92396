"""`agent-tui control-plane serve`: registering it imports only argparse (fast `--help`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_control_plane_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """`agent-tui control-plane serve` and `agent-tui deployments list|watch`.

    Registering imports nothing heavy; the handlers import what they need when they run.
    """
    from agent_tui.cli.deployments import add_deployments_commands

    add_deployments_commands(commands)
    group = commands.add_parser(
        "control-plane",
        prog="agent-tui control-plane",
        help="a local deployment control plane speaking the LangSmith /v2 API (headless)",
    )
    sub = group.add_subparsers(title="control-plane commands", metavar="COMMAND")
    sub.required = True
    serve = sub.add_parser(
        "serve",
        prog="agent-tui control-plane serve",
        help="serve the control plane until Ctrl-C; deployments run as local agent servers",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8123, help="port (0: any free port)")
    serve.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="state folder (default: <user data>/control-plane)",
    )
    serve.set_defaults(handler=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    import uvicorn

    from agent_tui.local.control_plane.app import create_app
    from agent_tui.local.control_plane.auth import (
        KEY_ENV,
        KEY_FILE,
        ControlPlaneKeyError,
        control_plane_key,
    )
    from agent_tui.local.control_plane.server import bind_socket, default_data_dir

    data_dir: Path = args.data_dir or default_data_dir()
    try:
        key = control_plane_key(data_dir)
    except ControlPlaneKeyError as error:
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
    config = uvicorn.Config(create_app(data_dir, key), log_level="info", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
    return 0
