"""`agent-tui assistants list | show | versions | set-version | create | update | delete`:
assistants and their versions, headless.

An ASSISTANT is what `assistants.lookup` reads: an id, a graph name (its default
assistant) or an assistant's own name. An update replaces the whole context, so one that
would drop keys of the active version is refused unless `--drop` says so. After
`set-version` the assistant's context is compared with that version's: the in-memory
runtime keeps the newer context (docs/server-quirks.md), and this says so. The arguments
are in `assistants_args.py`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from agent_tui.assistants.lookup import find_assistant, find_version
from agent_tui.chat.item_text import compact_json
from agent_tui.cli.common import (
    EXIT_OK,
    NotThere,
    UsageError,
    print_json,
    print_table,
    run,
    say,
)
from agent_tui.text.context_diff import dropped_keys
from agent_tui.text.escaping import exact_json
from agent_tui.text.time_text import utc_minutes

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant, AssistantVersion

CONTEXT_PREVIEW = 60  # characters of a version's context in the versions table


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def assistant_json(assistant: Assistant) -> dict[str, Any]:
    return {
        "assistant_id": assistant.assistant_id,
        "graph_id": assistant.graph_id,
        "name": assistant.name,
        "description": assistant.description,
        "version": assistant.version,
        "context": assistant.context,
        "config": assistant.config,
        "metadata": assistant.metadata,
        "created_at": _iso(assistant.created_at),
        "updated_at": _iso(assistant.updated_at),
    }


def version_json(version: AssistantVersion, active: int | None) -> dict[str, Any]:
    return {
        "version": version.version,
        "active": version.version == active,
        "name": version.name,
        "context": version.context,
        "config": version.config,
        "metadata": version.metadata,
        "created_at": _iso(version.created_at),
    }


def list_assistants(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        found = await client.assistants.search(
            args.graph, name=args.name, limit=args.limit, sort_by="updated_at", sort_order="desc"
        )
        if args.json:
            print_json([assistant_json(assistant) for assistant in found])
            return EXIT_OK
        if not found:
            say("no assistants", sys.stderr)
            return EXIT_OK
        rows = [
            [
                a.assistant_id,
                a.name,
                a.graph_id,
                str(a.version) if a.version is not None else "",
                utc_minutes(a.updated_at),
            ]
            for a in found
        ]
        print_table(["ASSISTANT ID", "NAME", "GRAPH", "VERSION", "UPDATED (UTC)"], rows)
        return EXIT_OK

    return run(args, work)


def show_assistant(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        assistant = await find_assistant(client, args.assistant)
        active = await find_version(client, assistant, None)
        schemas = (
            await client.assistants.get_schemas(assistant.assistant_id) if args.schemas else None
        )
        stale = active.context != assistant.context
        if args.json:
            shown = assistant_json(assistant)
            shown["active_version_context"] = active.context
            if schemas is not None:
                shown["schemas"] = schemas.model_dump(mode="json")
            print_json(shown)
            return EXIT_OK
        rows = [
            ["assistant", assistant.assistant_id],
            ["name", assistant.name],
            ["graph", assistant.graph_id],
            ["version", f"{assistant.version} (active)"],
            ["description", assistant.description or ""],
            ["created", utc_minutes(assistant.created_at)],
            ["updated", utc_minutes(assistant.updated_at)],
        ]
        width = max(len(key) for key, _ in rows)
        for key, value in rows:
            say(f"{key.ljust(width)}  {' '.join(value.split())}")
        for heading, data in (
            ("context", active.context),
            ("metadata", assistant.metadata),
            ("config", assistant.config),
        ):
            say(f"{heading}:\n{_indented(data)}")
        if stale:
            say(
                f"the server's record holds another context than version {active.version}'s"
                f" ({compact_json(assistant.context, CONTEXT_PREVIEW)}): runs by assistant id"
                " get that one (a known bug of the in-memory runtime)",
                sys.stderr,
            )
        if schemas is not None:
            for key, value in schemas.model_dump(mode="json").items():
                if key.endswith("schema"):
                    say(f"{key}:\n{_indented(value)}")
        return EXIT_OK

    return run(args, work)


def list_versions(args: argparse.Namespace) -> int:
    from agent_tui.assistants.lookup import all_versions

    async def work(client: AgentServerClient) -> int:
        assistant = await find_assistant(client, args.assistant)
        versions = await all_versions(client, assistant.assistant_id)
        if args.json:
            print_json([version_json(v, assistant.version) for v in versions])
            return EXIT_OK
        rows = [
            [
                str(v.version),
                "*" if v.version == assistant.version else "",
                utc_minutes(v.created_at),
                v.name,
                compact_json(v.context, CONTEXT_PREVIEW),
            ]
            for v in versions
        ]
        print_table(["VERSION", "ACTIVE", "CREATED (UTC)", "NAME", "CONTEXT"], rows)
        return EXIT_OK

    return run(args, work)


def set_version(args: argparse.Namespace) -> int:
    from agent_tui.assistants.context_overrides import ContextOverrides
    from agent_tui.assistants.versions import set_active_version

    async def work(client: AgentServerClient) -> int:
        assistant = await find_assistant(client, args.assistant)
        await find_version(client, assistant, args.version)  # names the versions there are
        check = await set_active_version(
            client, assistant.assistant_id, args.version, ContextOverrides()
        )
        if args.json:
            print_json(
                {
                    "assistant_id": assistant.assistant_id,
                    "version": args.version,
                    "context_matches": not check.mismatch,
                }
            )
        else:
            say(f"{assistant.name or assistant.graph_id}: version {args.version} is active")
        if check.mismatch:
            keys = ", ".join(change.key for change in check.changes) or "its values"
            say(
                f"the server switched to version {args.version} but kept another context"
                f" ({keys} differ), a known bug of the in-memory runtime: runs by assistant"
                f" id get the wrong context; `agent-tui experiments run"
                f" {assistant.assistant_id}@{args.version}` passes version {args.version}'s",
                sys.stderr,
            )
        return EXIT_OK

    return run(args, work, changes="set an assistant's version")


def create_assistant(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        from agent_tui.chat.assistant import graph_names
        from agent_tui.client import NotFound

        try:
            graphs = {a.graph_id for a in await client.assistants.search(args.graph, limit=1)}
        except NotFound:
            graphs = set()
        if args.graph not in graphs:
            known = ", ".join(await graph_names(client)) or "none"
            raise NotThere(f"no graph {args.graph!r} on the server (its graphs: {known})")
        assistant = await client.assistants.create(
            args.graph,
            args.context_json,
            name=args.name,
            metadata=args.metadata,
            description=args.description,
            config=args.config,
        )
        if args.json:
            print_json(assistant_json(assistant))
        else:
            say(assistant.assistant_id)  # alone on stdout: `id=$(agent-tui assistants create …)`
        return EXIT_OK

    return run(args, work, changes="create an assistant")


def update_assistant(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        assistant = await find_assistant(client, args.assistant)
        active = await find_version(client, assistant, None)
        dropped = dropped_keys(active.context, args.context_json)
        if dropped and not args.drop:
            raise UsageError(
                f"the new version would drop {', '.join(dropped)} of version {active.version}"
                " (an update replaces the whole context): put them in --context-json, or pass"
                " --drop to drop them"
            )
        updated = await client.assistants.update(
            assistant.assistant_id,
            args.context_json,
            name=args.name,
            description=args.description,
            metadata=args.metadata,
            config=args.config,
        )
        if args.json:
            print_json(assistant_json(updated))
        else:
            say(f"{updated.name or updated.graph_id}: version {updated.version} is active")
        if dropped:
            say(f"dropped: {', '.join(dropped)}", sys.stderr)
        return EXIT_OK

    return run(args, work, changes="update an assistant")


def delete_assistant(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        from agent_tui.client import NotFound

        assistant = await find_assistant(client, args.assistant)
        try:
            await client.assistants.delete(assistant.assistant_id)
        except NotFound:
            raise NotThere(f"no assistant {assistant.assistant_id} on the server") from None
        if args.json:
            print_json({"assistant_id": assistant.assistant_id, "deleted": True})
        else:
            say(f"deleted assistant {assistant.assistant_id} ({assistant.name})")
        return EXIT_OK

    return run(args, work, changes="delete an assistant")


def _indented(value: Any) -> str:
    text = exact_json(value)
    return "\n".join(f"  {line}" for line in text.splitlines())
