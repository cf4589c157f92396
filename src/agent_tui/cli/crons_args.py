"""The arguments of `agent-tui crons list | create | rm`; the commands are
`crons_commands.py`. Imports nothing but argparse and the other argument modules (see
`run_args.py` for why)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime

from agent_tui.cli.common import add_connection_options
from agent_tui.cli.run_args import NOT_GIVEN, json_value
from agent_tui.cli.store_args import positive_int


def add_crons_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    handler: Callable[[str], Callable[[argparse.Namespace], int]],
) -> None:
    """The `crons` subcommands; `handler(name)` is the handler of `crons_commands.<name>`."""
    crons = commands.add_parser(
        "crons",
        prog="agent-tui crons",
        help="runs on a schedule: list, create, delete cron jobs (headless)",
        description="Exit codes: 0 done, 1 the server said no, 2 bad usage (a schedule that "
        "does not parse, for one) or read-only.",
    )
    cron_commands = crons.add_subparsers(
        title="crons commands", metavar="COMMAND", prog="agent-tui crons"
    )
    cron_commands.required = True

    listing = cron_commands.add_parser(
        "list",
        prog="agent-tui crons list",
        help="the cron jobs: schedule, what they run, next run (UTC), enabled",
    )
    listing.add_argument(
        "--assistant", metavar="ID", help="only the crons of this assistant (id or graph name)"
    )
    listing.add_argument("--thread", metavar="ID", help="only the crons of this thread")
    listing.add_argument(
        "--limit", metavar="N", type=positive_int, default=100, help="at most N crons (100)"
    )
    add_connection_options(listing)
    listing.set_defaults(handler=handler("list_crons"))

    create = cron_commands.add_parser(
        "create",
        prog="agent-tui crons create",
        help="run an assistant on a schedule: on a new thread each time, or on one thread",
        description="The schedule is five cron fields (minute hour day-of-month month "
        "day-of-week), in UTC unless --timezone names another zone; it is checked here "
        "before anything is sent, and the next runs are printed.",
    )
    create.add_argument(
        "assistant",
        metavar="ASSISTANT_OR_GRAPH",
        help="an assistant id or a graph name (its default assistant)",
    )
    create.add_argument(
        "--schedule", metavar="CRON", required=True, help="e.g. '0 9 * * 1-5' (9:00 on weekdays)"
    )
    create.add_argument(
        "--thread", metavar="ID", help="run on this thread each time (default: a new thread)"
    )
    given = create.add_mutually_exclusive_group()
    given.add_argument("--message", metavar="TEXT", help="send a human message each run")
    given.add_argument(
        "--input",
        metavar="JSON",
        type=json_value,
        default=NOT_GIVEN,
        help="the graph's input each run, as JSON",
    )
    create.add_argument(
        "--end-time",
        metavar="ISO",
        type=end_time,
        help="no runs after this time (ISO 8601; UTC unless it names an offset)",
    )
    create.add_argument(
        "--timezone",
        metavar="TZ",
        type=timezone_name,
        help="read the schedule in this IANA zone, e.g. Europe/Paris (default: UTC)",
    )
    add_connection_options(create)
    create.set_defaults(handler=handler("create_cron"))

    remove = cron_commands.add_parser("rm", prog="agent-tui crons rm", help="delete a cron job")
    remove.add_argument("cron_id", metavar="ID")
    add_connection_options(remove)
    remove.set_defaults(handler=handler("delete_cron"))


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
