"""`agent-tui store ls [PREFIX] | get NS KEY | put NS KEY --value JSON [--ttl MINUTES] |
rm NS KEY | search NS [--filter JSON] [--query TEXT]`: the Store, headless.

The arguments are in `store_args.py`. Namespaces print with dots, as they are typed
(the store refuses a dot inside a part, so the dotted form is never ambiguous);
`--json` gives them as lists, as the API does.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from agent_tui.chat.item_text import compact_json
from agent_tui.cli.common import EXIT_OK, NotThere, print_json, print_table, run, say
from agent_tui.client.models.memory import dotted
from agent_tui.text.time_text import utc_seconds

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import StoreItem

VALUE_PREVIEW = 60  # characters of a value in the search table

NO_INDEX = (
    "agent-tui: this server's store has no index for --query: the query is ignored "
    "and the items are not ranked"
)


def item_json(item: StoreItem, *, score: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "namespace": item.namespace,
        "key": item.key,
        "value": item.value,
        "created_at": item.created_at.isoformat() if item.created_at else None,
        "updated_at": item.updated_at.isoformat() if item.updated_at else None,
    }
    if score:
        data["score"] = item.score
    return data


def list_namespaces(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        namespaces = await client.store.list_namespaces(
            args.prefix or None, max_depth=args.max_depth, limit=args.limit
        )
        if args.json:
            print_json([list(namespace) for namespace in namespaces])
            return EXIT_OK
        for namespace in namespaces:
            say(dotted(namespace))
        if not namespaces:
            under = f" under {dotted(args.prefix)}" if args.prefix else ""
            say(f"agent-tui: no namespaces{under}", sys.stderr)
        return EXIT_OK

    return run(args, work)


def get_item(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        item = await _existing(client, args.namespace, args.key)
        if args.json:
            print_json(item_json(item))
            return EXIT_OK
        say(f"namespace      {dotted(item.ns)}")
        say(f"key            {item.key}")
        say(f"created (UTC)  {utc_seconds(item.created_at)}")
        say(f"updated (UTC)  {utc_seconds(item.updated_at)}")
        say("value")
        print_json(item.value)  # JSON, as it was put: exact, with controls written out
        return EXIT_OK

    return run(args, work)


def put_item(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        await client.store.put_item(args.namespace, args.key, args.value, ttl=args.ttl)
        if args.json:
            # What the server kept, read back (its answer to a put has no body).
            print_json(item_json(await _existing(client, args.namespace, args.key)))
        else:
            say(f"put {args.key} in {dotted(args.namespace)}")
        return EXIT_OK

    return run(args, work, changes="put a store item")


def delete_item(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        # The server deletes a missing item without a word: a typo in the key would go
        # unnoticed, so it is looked up first (as `rm` says "No such file").
        await _existing(client, args.namespace, args.key)
        await client.store.delete_item(args.namespace, args.key)
        if args.json:
            print_json({"namespace": list(args.namespace), "key": args.key, "deleted": True})
        else:
            say(f"deleted {args.key} from {dotted(args.namespace)}")
        return EXIT_OK

    return run(args, work, changes="delete a store item")


def search_items(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        items = await client.store.search_items(
            args.namespace,
            filter=args.filter,
            query=args.query,
            limit=args.limit,
            offset=args.offset,
        )
        ranked = any(item.score is not None for item in items)
        if args.query and items and not ranked:
            say(NO_INDEX, sys.stderr)
        if args.json:
            print_json([item_json(item, score=True) for item in items])
            return EXIT_OK
        headers = ["NAMESPACE", "KEY", "UPDATED (UTC)", *(["SCORE"] if ranked else []), "VALUE"]
        rows = [
            [
                dotted(item.ns),
                item.key,
                utc_seconds(item.updated_at),
                *([_score(item.score)] if ranked else []),
                compact_json(item.value, VALUE_PREVIEW),
            ]
            for item in items
        ]
        print_table(headers, rows)
        return EXIT_OK

    return run(args, work)


async def _existing(client: AgentServerClient, namespace: tuple[str, ...], key: str) -> StoreItem:
    from agent_tui.client import NotFound

    try:
        return await client.store.get_item(namespace, key)
    except NotFound:
        raise NotThere(f"no item {key!r} in namespace {dotted(namespace)}") from None


def _score(score: float | None) -> str:
    return "—" if score is None else f"{score:.3f}"
