"""The arguments of `agent-tui store ls | get | put | rm | search`; the commands are
`store_commands.py`.

Kept apart from the commands, as `run_args.py` is: this module is imported whenever
`agent-tui` builds its parser (see `commands.py`), so it imports nothing but argparse and
`common`.

A namespace is written with dots (`users.u1.memories`), as the API's query form is.
"""

from __future__ import annotations

import argparse
from typing import Any

from agent_tui.cli.common import add_connection_options


def ls_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "prefix",
        metavar="PREFIX",
        nargs="?",
        type=namespace_prefix,
        default=(),
        help="a dotted namespace prefix (default: every namespace)",
    )
    parser.add_argument(
        "--max-depth",
        metavar="N",
        type=positive_int,
        help="cut namespaces to their first N parts (users.u1.memories at 2: users.u1)",
    )
    parser.add_argument(
        "--limit", metavar="N", type=positive_int, default=100, help="at most N namespaces (100)"
    )
    add_connection_options(parser)


def get_arguments(parser: argparse.ArgumentParser) -> None:
    _item_arguments(parser)
    add_connection_options(parser)


def put_arguments(parser: argparse.ArgumentParser) -> None:
    _item_arguments(parser)
    parser.add_argument(
        "--value",
        metavar="JSON",
        type=json_object,
        required=True,
        help='the item\'s value: a JSON object, e.g. \'{"city": "Paris"}\'',
    )
    parser.add_argument(
        "--ttl",
        metavar="MINUTES",
        type=positive_number,
        help="forget the item after this many minutes (where the server's store has TTLs)",
    )
    add_connection_options(parser)


def rm_arguments(parser: argparse.ArgumentParser) -> None:
    _item_arguments(parser)
    add_connection_options(parser)


def search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "namespace",
        metavar="NS",
        nargs="?",
        type=namespace_prefix,
        default=(),
        help="a dotted namespace prefix (default: every namespace)",
    )
    parser.add_argument(
        "--filter",
        metavar="JSON",
        type=json_object,
        help='value keys to match exactly, e.g. \'{"city": "Paris"}\'',
    )
    parser.add_argument("--query", metavar="TEXT", help="natural-language search")
    parser.add_argument(
        "--limit", metavar="N", type=positive_int, default=20, help="at most N items (20)"
    )
    parser.add_argument(
        "--offset", metavar="N", type=non_negative_int, default=0, help="skip the first N items"
    )
    add_connection_options(parser)


def _item_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "namespace", metavar="NS", type=namespace, help="a dotted namespace: users.u1.memories"
    )
    parser.add_argument("key", metavar="KEY")


def namespace_prefix(text: str) -> tuple[str, ...]:
    """A dotted namespace prefix; empty text is every namespace."""
    return namespace(text) if text else ()


def namespace(text: str) -> tuple[str, ...]:
    """`users.u1.memories` → `("users", "u1", "memories")`; no empty part."""
    parts = tuple(text.split("."))
    if not text or "" in parts:
        raise argparse.ArgumentTypeError(
            f"not a namespace: {text!r} (its parts are joined by single dots: users.u1.memories)"
        )
    return parts


_JSON_KINDS = {
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def json_object(text: str) -> dict[str, Any]:
    """A JSON object (a store item's value, a search filter)."""
    from agent_tui.text.user_json import JsonTextError, parse_json

    try:
        value = parse_json(text)
    except JsonTextError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not isinstance(value, dict):
        kind = _JSON_KINDS.get(type(value), "that")
        raise argparse.ArgumentTypeError(
            f'must be a JSON object, like {{"key": "value"}}, not {kind}'
        )
    return value


def positive_int(text: str) -> int:
    number = _number(text, int)
    if number < 1:
        raise argparse.ArgumentTypeError(f"1 or more, got {text}")
    return int(number)


def non_negative_int(text: str) -> int:
    number = _number(text, int)
    if number < 0:
        raise argparse.ArgumentTypeError(f"0 or more, got {text}")
    return int(number)


def positive_number(text: str) -> float:
    number = _number(text, float)
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"a number above 0, got {text}")
    return float(number)


def _number(text: str, kind: type[int] | type[float]) -> float:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
