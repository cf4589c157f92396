"""PROTOTYPE. ``python -m agent_tui.server.main --config langgraph.json --port N``, run in
the data folder: langgraph-api's in-memory runtime with durable checkpoints, store and
records on public settings (see the package's docstring). ``--volatile``: none of it (the
runtime as shipped). What `local/server_process.py` also does (watchdog, standby, parent
death signal, the supervisor's socket) is left out here.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

# Before langgraph-api: captures the plain os functions (see `records`).
from agent_tui.server import records  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--fd", type=int, help="an inherited listening socket")
    parser.add_argument("--volatile", action="store_true")
    args = parser.parse_args(argv)

    from agent_tui.local.langgraph_config import load_langgraph_config

    config = load_langgraph_config(args.config)
    for folder in [config.folder, *config.dependencies]:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))

    from langgraph_api import cli

    from agent_tui.server import checkpointer, store, upstream

    options: dict[str, Any] = dict(config.options)
    if not args.volatile:
        gone = upstream.missing()
        if gone:
            print(f"agent-tui: langgraph-api changed: {', '.join(gone)}", file=sys.stderr)
            return 4
        # Measuring only: which parts run (all by default).
        parts = os.environ.get("AGENT_TUI_PROTOTYPE_PARTS", "checkpointer,store,records")
        if "checkpointer" in parts:
            options.setdefault("checkpointer", {"backend": "custom", "path": checkpointer.PATH})
        if "store" in parts:
            kept_store = dict(options.get("store") or {})
            kept_store.setdefault("path", store.PATH)
            options["store"] = kept_store
        http = dict(options.get("http") or {})
        if "app" in http:
            print(
                "agent-tui: prototype: a project's own http.app is not wrapped yet", file=sys.stderr
            )
            return 5
        if "records" in parts:
            http["app"] = "agent_tui.server.app:app"
        options["http"] = http

    # With a socket of the supervisor's (``--fd``), ``port=0`` keeps `run_server`'s port
    # probe (which would find that socket busy and pick another port) from mattering.
    where: dict[str, Any] = {"port": args.port}
    if args.fd is not None:
        where = {"port": 0, "fd": args.fd}

    os.environ["LANGGRAPH_DISABLE_FILE_PERSISTENCE"] = "false"
    cli.run_server(
        host=args.host,
        **where,
        reload=False,
        graphs=config.graphs,
        n_jobs_per_worker=10,
        open_browser=False,
        tunnel=False,
        env=config.env,
        server_level="INFO",
        timeout_graceful_shutdown=4,
        **options,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
