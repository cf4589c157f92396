"""The arguments of `agent-tui assistants …`; the commands are `assistants_commands.py`.
Imports nothing but argparse and the other argument modules (see `run_args.py` for why)."""

from __future__ import annotations

import argparse

from agent_tui.cli.common import add_connection_options
from agent_tui.cli.store_args import positive_int

ASSISTANT_HELP = "an assistant id, a graph name (its default assistant) or an assistant's name"


def _assistant(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assistant", metavar="ASSISTANT", help=ASSISTANT_HELP)


def json_object(text: str) -> dict[str, object]:
    import json

    try:
        value = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('a JSON object, e.g. \'{"model": "gpt-4o"}\'')
    return value


def list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--graph", metavar="GRAPH", help="only this graph's assistants")
    parser.add_argument("--name", metavar="NAME", help="only assistants of this name")
    parser.add_argument(
        "--limit", metavar="N", type=positive_int, default=100, help="at most N (100)"
    )
    add_connection_options(parser)


def show_arguments(parser: argparse.ArgumentParser) -> None:
    _assistant(parser)
    parser.add_argument(
        "--schemas",
        action="store_true",
        help="also the graph's schemas (input, output, state, context)",
    )
    add_connection_options(parser)


def assistant_arguments(parser: argparse.ArgumentParser) -> None:
    _assistant(parser)
    add_connection_options(parser)


def set_version_arguments(parser: argparse.ArgumentParser) -> None:
    _assistant(parser)
    parser.add_argument("version", metavar="VERSION", type=positive_int)
    add_connection_options(parser)


def _fields(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", metavar="NAME", help="the assistant's name")
    parser.add_argument("--description", metavar="TEXT", help="what it is for")
    parser.add_argument(
        "--metadata", metavar="JSON", type=json_object, help="metadata, a JSON object"
    )
    parser.add_argument(
        "--config",
        metavar="JSON",
        type=json_object,
        help="run config, a JSON object (tags, recursion_limit, configurable)",
    )


def create_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", metavar="GRAPH", help="the graph it configures")
    parser.add_argument(
        "--context-json",
        metavar="JSON",
        type=json_object,
        default={},
        help="its context (keys of the graph's context schema), a JSON object",
    )
    _fields(parser)
    add_connection_options(parser)


def update_arguments(parser: argparse.ArgumentParser) -> None:
    _assistant(parser)
    parser.add_argument(
        "--context-json",
        metavar="JSON",
        type=json_object,
        required=True,
        help="the new version's WHOLE context (not merged: a key left out is dropped)",
    )
    parser.add_argument(
        "--drop",
        action="store_true",
        help="drop the active version's keys that --context-json leaves out (refused otherwise)",
    )
    _fields(parser)
    add_connection_options(parser)
