"""The arguments of `agent-tui run`; the command itself is `run.py`.

Kept apart from the command: this module is imported whenever `agent-tui` builds its
parser (`--version` and `--help` included; see `commands.py`), so it imports nothing but
argparse and `common`, while the command imports the client and the chat when it runs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from agent_tui.cli.common import add_connection_options

# The server's stream modes (`messages-tuple` arrives as `messages` events).
STREAM_MODES = (
    "updates",
    "messages-tuple",
    "values",
    "messages",
    "custom",
    "debug",
    "tasks",
    "checkpoints",
    "events",
)
NOT_GIVEN: Any = object()  # `--input` / `--resume` absent (`null` is a value)


def run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "assistant",
        metavar="ASSISTANT_OR_GRAPH",
        nargs="?",
        help="an assistant id or a graph name (default: the thread's, else the only graph)",
    )
    parser.add_argument("--thread", metavar="ID", help="run on this thread (default: a new one)")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--message", metavar="TEXT", help="send a human message")
    given.add_argument(
        "--input",
        metavar="JSON",
        type=json_value,
        default=NOT_GIVEN,
        help="the graph's input, as JSON (e.g. '{\"n\": 5}')",
    )
    given.add_argument(
        "--resume",
        metavar="JSON",
        type=json_value,
        default=NOT_GIVEN,
        help="answer the thread's interrupt (several waiting: map their ids to answers)",
    )
    parser.add_argument(
        "--interrupt-before",
        metavar="NODES",
        type=breakpoints,
        help="pause before these nodes (comma-separated; '*': before every node)",
    )
    parser.add_argument(
        "--interrupt-after",
        metavar="NODES",
        type=breakpoints,
        help="pause after these nodes (comma-separated; '*': after every node)",
    )
    parser.add_argument(
        "--stream-mode",
        metavar="MODES",
        type=stream_modes,
        action="append",
        help=f"comma-separated, or repeat: {', '.join(STREAM_MODES)} "
        "(default: updates,messages-tuple)",
    )
    add_connection_options(parser)


def json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error})") from None


def breakpoints(text: str) -> str | list[str]:
    """`*`, or node names separated by commas."""
    if text.strip() == "*":
        return "*"
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one node, or '*' for every node")
    if "*" in names:
        raise argparse.ArgumentTypeError("'*' stands alone: it means every node")
    return names


def stream_modes(text: str) -> list[str]:
    modes = [mode.strip() for mode in text.split(",") if mode.strip()]
    unknown = [mode for mode in modes if mode not in STREAM_MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(
            f"unknown stream mode {', '.join(map(repr, unknown)) or repr(text)}: "
            f"choose from {', '.join(STREAM_MODES)}"
        )
    return modes
