"""The arguments of `agent-tui serve`; the command is `serve.py` (which imports the local
server: this module, imported whenever `agent-tui` builds its parser, imports only argparse).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="the project's langgraph.json (default: ./langgraph.json, else the demo graphs)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=port, help="port to listen on (default: a free one)")
    parser.add_argument(
        "--no-reload",
        dest="reload",
        action="store_false",
        help="do not restart the server when the project's files change",
    )
    parser.add_argument(
        "--no-traces",
        dest="traces",
        action="store_false",
        # SUPPRESS: a `--no-traces` given before `serve` is kept.
        default=argparse.SUPPRESS,
        help="do not trace the server's runs to agent-tui's collector (`agent-tui traces`)",
    )


def port(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < number < 65536:
        raise argparse.ArgumentTypeError(f"must be between 1 and 65535, got {number}")
    return number
