"""The arguments of `agent-tui store ls | get | put | rm | search`; the commands are
`store_commands.py`.

Kept apart from the commands, as `run_args.py` is: this module is imported whenever
`agent-tui` builds its parser, so it imports nothing but argparse and `common`.

A namespace is written with dots (`users.u1.memories`), as the API's query form is.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from agent_tui.cli.common import add_connection_options

Handler = Callable[[argparse.Namespace], int]


def add_store_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    handler: Callable[[str], Handler],
) -> None:
    """The `store` subcommands; `handler(name)` is the handler of `store_commands.<name>`."""
    store = commands.add_parser(
        "store",
        prog="agent-tui store",
        help="the agent server's long-term memory: namespaces and items (headless)",
        description="Namespaces are written with dots: users.u1.memories. Exit codes: 0 done, "
        "1 the server said no (or the item is not there), 2 bad usage or read-only.",
    )
    store_commands = store.add_subparsers(
        title="store commands", metavar="COMMAND", prog="agent-tui store"
    )
    store_commands.required = True

    listing = store_commands.add_parser(
        "ls", prog="agent-tui store ls", help="the namespaces under a prefix, one a line"
    )
    listing.add_argument(
        "prefix",
        metavar="PREFIX",
        nargs="?",
        type=namespace_prefix,
        default=(),
        help="a dotted namespace prefix (default: every namespace)",
    )
    listing.add_argument(
        "--max-depth",
        metavar="N",
        type=positive_int,
        help="cut namespaces to their first N parts (users.u1.memories at 2: users.u1)",
    )
    listing.add_argument(
        "--limit", metavar="N", type=positive_int, default=100, help="at most N namespaces (100)"
    )
    add_connection_options(listing)
    listing.set_defaults(handler=handler("list_namespaces"))

    get = store_commands.add_parser(
        "get", prog="agent-tui store get", help="one item: its value, created and updated times"
    )
    _item_arguments(get)
    add_connection_options(get)
    get.set_defaults(handler=handler("get_item"))

    put = store_commands.add_parser(
        "put",
        prog="agent-tui store put",
        help="create or replace an item",
        description="Create the item, or replace its value if it exists.",
    )
    _item_arguments(put)
    put.add_argument(
        "--value",
        metavar="JSON",
        type=json_object,
        required=True,
        help='the item\'s value: a JSON object, e.g. \'{"city": "Paris"}\'',
    )
    put.add_argument(
        "--ttl",
        metavar="MINUTES",
        type=positive_number,
        help="forget the item after this many minutes (where the server's store has TTLs)",
    )
    add_connection_options(put)
    put.set_defaults(handler=handler("put_item"))

    remove = store_commands.add_parser("rm", prog="agent-tui store rm", help="delete an item")
    _item_arguments(remove)
    add_connection_options(remove)
    remove.set_defaults(handler=handler("delete_item"))

    search = store_commands.add_parser(
        "search",
        prog="agent-tui store search",
        help="the items under a namespace prefix, by filter or query",
        description="The items of NS and of the namespaces under it. --filter matches value "
        "keys exactly; --query ranks by meaning where the server's store has a vector index "
        "(without one it is ignored, and this says so).",
    )
    search.add_argument(
        "namespace",
        metavar="NS",
        nargs="?",
        type=namespace_prefix,
        default=(),
        help="a dotted namespace prefix (default: every namespace)",
    )
    search.add_argument(
        "--filter",
        metavar="JSON",
        type=json_object,
        help='value keys to match exactly, e.g. \'{"city": "Paris"}\'',
    )
    search.add_argument("--query", metavar="TEXT", help="natural-language search")
    search.add_argument(
        "--limit", metavar="N", type=positive_int, default=20, help="at most N items (20)"
    )
    search.add_argument(
        "--offset", metavar="N", type=non_negative_int, default=0, help="skip the first N items"
    )
    add_connection_options(search)
    search.set_defaults(handler=handler("search_items"))


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
