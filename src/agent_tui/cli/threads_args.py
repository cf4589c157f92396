"""The arguments of the thread commands: `threads list`, `history`, `diff`, `export`,
`import`; the commands are `threads_list.py`, `history_diff.py` and `transfer.py`.

Imported whenever `agent-tui` builds its parser (see `commands.py`), so it imports nothing
but argparse and `common`.
"""

from __future__ import annotations

import argparse

from agent_tui.cli.common import add_connection_options


def list_arguments(parser: argparse.ArgumentParser) -> None:
    """`threads list`."""
    parser.add_argument(
        "--status", metavar="S", help="idle, busy, interrupted or error (default: any)"
    )
    parser.add_argument(
        "--metadata",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="exact metadata match; repeat for more keys (a JSON value is parsed: n=3, ok=true)",
    )
    parser.add_argument("--limit", metavar="N", default="20", help="at most N threads (1-1000)")
    add_connection_options(parser)


def history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("thread_id", metavar="THREAD_ID")
    parser.add_argument(
        "--limit", metavar="N", type=int, default=50, help="at most N checkpoints (0: all)"
    )
    add_connection_options(parser)


def diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("thread_id", metavar="THREAD_ID")
    parser.add_argument(
        "checkpoint_a", metavar="CHECKPOINT_A", help="checkpoint id (or its last 8 digits)"
    )
    parser.add_argument("checkpoint_b", metavar="CHECKPOINT_B")
    add_connection_options(parser)


def export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("thread_id", metavar="THREAD_ID")
    parser.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="the file to write ('-': stdout)"
    )
    parser.add_argument(
        "--checkpoint",
        metavar="ID",
        help="export the branch ending at this checkpoint (default: the latest checkpoint's)",
    )
    parser.add_argument(
        "--traces",
        action="store_true",
        # Not `traces`: that is the global switch (`--no-traces`), which `main` reads to
        # turn tracing off for the process (an export without this flag did).
        dest="with_traces",
        help="also write the thread's traces from this machine's trace store "
        "(`agent-tui traces`); `import` stores them for the new thread",
    )
    add_connection_options(parser, json_flag=False)


def import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a file written by `agent-tui export`")
    parser.add_argument(
        "--no-check",
        dest="check",
        action="store_false",
        help="skip comparing the new thread's history with the file",
    )
    add_connection_options(parser)
