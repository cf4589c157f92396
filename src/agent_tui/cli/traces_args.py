"""The arguments of `agent-tui traces serve | list | show`; the commands are
`traces_commands.py`. Imports nothing but argparse and the other argument modules (see
`run_args.py` for why)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent_tui.cli.store_args import positive_int

DEFAULT_PORT = 8124
"""`traces serve`'s port: beside the local control plane's 8123, and fixed, so that a
project's `LANGSMITH_ENDPOINT` can name it once."""


def _data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="the traces folder (default: <user data>/traces)",
    )


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT}; 0: any free one)"
    )
    parser.add_argument(
        "--max-size-mb",
        metavar="N",
        type=positive_int,
        help="megabytes of runs to keep before the oldest traces are pruned "
        "(default: [traces] max_size_mb, 256)",
    )
    parser.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="do not offer zstd to the SDK (it then sends plain multipart)",
    )
    _data_dir(parser)


def list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--thread", metavar="ID", help="only the traces of this thread")
    parser.add_argument(
        "--run", metavar="ID", help="only the trace of this run (the agent server's run id)"
    )
    parser.add_argument(
        "--limit", metavar="N", type=positive_int, default=50, help="at most N traces (50)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (stable keys)")
    _data_dir(parser)


def show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_id", metavar="ID", help="a trace id, a run id in it, or the agent server's run id"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the run and its children as JSON, whole"
    )
    _data_dir(parser)
