"""The arguments of `agent-tui crons list | create | rm`; the commands are
`crons_commands.py`. Imports nothing but argparse and the other argument modules (see
`run_args.py` for why)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from agent_tui.cli.common import add_connection_options
from agent_tui.cli.run_args import NOT_GIVEN, json_value
from agent_tui.cli.store_args import positive_int


def list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--assistant", metavar="ID", help="only the crons of this assistant (id or graph name)"
    )
    parser.add_argument("--thread", metavar="ID", help="only the crons of this thread")
    parser.add_argument(
        "--limit", metavar="N", type=positive_int, default=100, help="at most N crons (100)"
    )
    add_connection_options(parser)


def create_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "assistant",
        metavar="ASSISTANT_OR_GRAPH",
        help="an assistant id or a graph name (its default assistant)",
    )
    parser.add_argument(
        "--schedule", metavar="CRON", required=True, help="e.g. '0 9 * * 1-5' (9:00 on weekdays)"
    )
    parser.add_argument(
        "--thread", metavar="ID", help="run on this thread each time (default: a new thread)"
    )
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--message", metavar="TEXT", help="send a human message each run")
    given.add_argument(
        "--input",
        metavar="JSON",
        type=json_value,
        default=NOT_GIVEN,
        help="the graph's input each run, as JSON",
    )
    parser.add_argument(
        "--end-time",
        metavar="ISO",
        type=end_time,
        help="no runs after this time (ISO 8601; UTC unless it names an offset)",
    )
    parser.add_argument(
        "--timezone",
        metavar="TZ",
        type=timezone_name,
        help="read the schedule in this IANA zone, e.g. Europe/Paris (default: UTC)",
    )
    add_connection_options(parser)


def rm_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cron_id", metavar="ID")
    add_connection_options(parser)


def end_time(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not an ISO 8601 time: {text!r} (e.g. 2027-01-31T18:00:00Z)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def timezone_name(text: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise argparse.ArgumentTypeError(
            f"unknown timezone {text!r} (an IANA name, e.g. Europe/Paris)"
        ) from None
    return text
