"""`agent-tui deployments logs | revisions | delete | redeploy` (headless; the arguments
are `control_plane_args.py`). DEPLOYMENT is an id or an exact name.

Logs come from `/v1/projects/{id}/…/build_logs` and `deploy_logs`, as LangSmith serves
them: the newest `--limit` lines oldest first; `--follow` then keeps printing each new
line as it comes until ctrl+c (as `tail -f` and `langgraph deploy logs --follow` do), or
with `--from-start` prints every line from the first (paged with `next_offset`) before
waiting for new ones. `delete` asks on a
terminal and refuses without `--force` when stdin is not one. What the control plane
sends is cleaned before it is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import EXIT_OK, UsageError, print_json, print_table, say
from agent_tui.cli.deployments import (
    control_plane_client,
    find_deployment,
    refuse_writes,
    run_control_plane,
)
from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.client.models.control_plane import LogEntry


def logs_command(args: argparse.Namespace) -> int:
    return run_control_plane(_logs, args)


def revisions_command(args: argparse.Namespace) -> int:
    return run_control_plane(_revisions, args)


def delete_command(args: argparse.Namespace) -> int:
    return run_control_plane(_delete, args)


def redeploy_command(args: argparse.Namespace) -> int:
    return run_control_plane(_redeploy, args)


def _print_entry(entry: LogEntry, as_json: bool) -> None:
    if as_json:
        # One entry a line, so a follower's output can be read as it comes.
        print(clean_json_line(entry.raw()))
    else:
        from agent_tui.deployments.log_lines import log_line

        say(log_line(entry))
    sys.stdout.flush()


def clean_json_line(data: Any) -> str:
    import json

    from agent_tui.text.escaping import escape_json_controls

    return escape_json_controls(json.dumps(data, ensure_ascii=False, default=str))


async def _logs(args: argparse.Namespace) -> int:
    from agent_tui.client.control_plane_logs import LogQuery

    if args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    query = LogQuery(
        level=args.level,
        query=args.query,
        start_time=args.start_time,
        end_time=args.end_time,
        limit=args.limit,
        order="desc",
    )
    async with control_plane_client(args) as client:
        deployment = await find_deployment(client, args.deployment)
        assert deployment is not None
        revision_id = args.revision
        if revision_id is None and args.type == "build":
            revision_id = deployment.latest_revision_id
            if revision_id is None:
                raise UsageError(f"deployment {deployment.name} has no revision yet")
        if args.follow:
            read = client.logs.follow if args.from_start else client.logs.tail
            async for entry in read(
                args.type, deployment.id, revision_id, query, interval=args.interval
            ):
                _print_entry(entry, args.json)
            return EXIT_OK
        page = await client.logs.page(args.type, deployment.id, revision_id, query)
    entries = list(reversed(page.logs))  # the newest lines, read oldest first
    if args.json:
        print_json([e.raw() for e in entries])
        return EXIT_OK
    for entry in entries:
        _print_entry(entry, False)
    return EXIT_OK


async def _revisions(args: argparse.Namespace) -> int:
    from agent_tui.text.time_text import utc_minutes

    async with control_plane_client(args) as client:
        deployment = await find_deployment(client, args.deployment)
        assert deployment is not None
        revisions = []
        offset = 0
        while True:
            page = await client.revisions.list(deployment.id, limit=100, offset=offset)
            revisions += page.resources
            if len(page.resources) < 100:
                break
            offset += len(page.resources)
    if args.json:
        print_json([r.raw() for r in revisions])
        return EXIT_OK
    rows = [
        [
            r.id,
            r.status,
            "*" if r.id == deployment.active_revision_id else "",
            utc_minutes(r.created_at, missing=""),
        ]
        for r in revisions
    ]
    print_table(["REVISION", "STATUS", "ACTIVE", "CREATED"], rows)
    return EXIT_OK


async def _delete(args: argparse.Namespace) -> int:
    refuse_writes(args, "delete a deployment")
    if not args.force and not sys.stdin.isatty():
        raise UsageError("stdin is not a terminal to ask on: pass --force to delete")
    async with control_plane_client(args) as client:
        deployment = await find_deployment(client, args.deployment)
        assert deployment is not None
        what = clean_text(f"{deployment.name} ({deployment.id})")
        if not args.force:
            question = f"Delete deployment {what} and its agent server? [y/N] "
            answer = await asyncio.to_thread(input, question)
            if answer.strip().lower() not in ("y", "yes"):
                say("not deleted")
                return EXIT_OK
        await client.deployments.delete(deployment.id)
    say(f"deleted deployment {what}")
    return EXIT_OK


async def _redeploy(args: argparse.Namespace) -> int:
    refuse_writes(args, "redeploy a revision")
    async with control_plane_client(args) as client:
        deployment = await find_deployment(client, args.deployment)
        assert deployment is not None
        redeployed = await client.revisions.redeploy(deployment.id, args.revision)
    if args.json:
        from agent_tui.deployments.secrets import mask_secrets

        print_json(mask_secrets(redeployed.raw()))
        return EXIT_OK
    say(
        f"redeploying revision {args.revision} of {deployment.name}: "
        f"new revision {redeployed.latest_revision_id or '(none given)'}"
    )
    say(f"follow it with: agent-tui deployments watch {deployment.id}")
    return EXIT_OK
