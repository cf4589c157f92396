"""The arguments of `agent-tui experiments …`; the commands are `experiments_commands.py`.
Imports nothing but argparse and the other argument modules (see `run_args.py` for why)."""

from __future__ import annotations

import argparse

from agent_tui.cli.common import add_connection_options
from agent_tui.cli.datasets_args import dataset_name
from agent_tui.cli.store_args import positive_int


def run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", type=dataset_name)
    parser.add_argument(
        "--assistant",
        metavar="ASSISTANT[@VERSION]",
        action="append",
        required=True,
        dest="assistants",
        help="an assistant id, graph name or assistant name, optionally @VERSION; repeat: "
        "each is compared with those before it",
    )
    parser.add_argument(
        "--evaluator",
        metavar="EVALUATOR",
        default="exact",
        help="exact (default), contains, regex:PATTERN, json:PATH or module:function",
    )
    parser.add_argument(
        "--concurrency", metavar="N", type=positive_int, default=4, help="runs at a time (4)"
    )
    parser.add_argument(
        "--output-key",
        metavar="KEY",
        action="append",
        default=[],
        dest="output_keys",
        help="compare this state key instead of the last message's text (repeat for more)",
    )
    add_connection_options(parser)


def list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (stable keys)")


def show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("experiment", metavar="ID", help="an experiment id (or its start)")
    parser.add_argument("--json", action="store_true", help="print the experiment as JSON")
