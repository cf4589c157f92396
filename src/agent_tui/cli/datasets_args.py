"""The arguments of `agent-tui datasets …`; the commands are `datasets_commands.py`.
Imports nothing but argparse and the other argument modules (see `run_args.py` for why)."""

from __future__ import annotations

import argparse

from agent_tui.cli.common import add_connection_options


def dataset_name(text: str) -> str:
    import re

    # As `datasets.model.check_name`, without importing it here.
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: up to 100 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return text


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (stable keys)")


def list_arguments(parser: argparse.ArgumentParser) -> None:
    _json_flag(parser)


def show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", type=dataset_name)
    _json_flag(parser)


def import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.jsonl", help="one example a line; - reads stdin")
    parser.add_argument(
        "--name", metavar="NAME", type=dataset_name, required=True, help="the dataset (made if new)"
    )
    _json_flag(parser)


def export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", type=dataset_name)
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default="-", help="where to write (default: stdout)"
    )


def delete_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", type=dataset_name)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", type=dataset_name, help="the dataset (made if new)")
    parser.add_argument(
        "--thread", metavar="ID", required=True, help="the thread to take a turn of"
    )
    parser.add_argument(
        "--turn",
        metavar="N",
        type=int,
        default=-1,
        help="which turn: 1 the first, -1 the last (default)",
    )
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="keep only the input, not the turn's answer as the reference",
    )
    add_connection_options(parser)
