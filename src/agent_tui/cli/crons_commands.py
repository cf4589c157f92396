"""`agent-tui crons list [--assistant ID] [--thread ID] | create ASSISTANT_OR_GRAPH
--schedule CRON [--thread ID] [--message TEXT | --input JSON] [--end-time ISO]
[--timezone TZ] | rm ID`: cron jobs, headless.

The schedule is checked here with the server's own parser (`crons.schedule`) before
anything is sent, and next run times are computed from it, in UTC. The assistant
resolves as `agent-tui run` resolves it (`common.assistant_named`); the server takes a
graph name for its default assistant when a cron is created, but only ids when crons
are searched. The arguments are in `crons_args.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from typing import TYPE_CHECKING, Any

from agent_tui.chat.assistant import assistant_label, default_assistant
from agent_tui.chat.item_text import compact_json
from agent_tui.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    NotThere,
    assistant_named,
    fail,
    print_json,
    print_table,
    run,
    say,
)
from agent_tui.cli.run_args import NOT_GIVEN
from agent_tui.crons.draft import message_input
from agent_tui.crons.runs import upcoming_run
from agent_tui.crons.schedule import check_schedule
from agent_tui.text.short_ids import short_random_id
from agent_tui.text.time_text import utc_minutes

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Cron

INPUT_PREVIEW = 50  # characters of a cron's input in the list


def cron_json(cron: Cron) -> dict[str, Any]:
    upcoming = upcoming_run(cron)
    return {
        "cron_id": cron.cron_id,
        "assistant_id": cron.assistant_id,
        "thread_id": cron.thread_id,
        "schedule": cron.schedule,
        "timezone": cron.timezone,
        "next_run": upcoming.isoformat() if upcoming else None,
        "end_time": cron.end_time.isoformat() if cron.end_time else None,
        "enabled": cron.enabled,
        "on_run_completed": cron.on_run_completed,
        "input": cron.input,
        "metadata": cron.metadata,
        "created_at": cron.created_at.isoformat() if cron.created_at else None,
        "updated_at": cron.updated_at.isoformat() if cron.updated_at else None,
    }


def list_crons(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        assistant_id = await _assistant_id(client, args.assistant) if args.assistant else None
        crons = await client.crons.search(
            assistant_id=assistant_id, thread_id=args.thread, limit=args.limit
        )
        if args.json:
            print_json([cron_json(cron) for cron in crons])
            return EXIT_OK
        names = await _assistant_names(client, {cron.assistant_id for cron in crons})
        rows = [
            [
                cron.cron_id,
                _schedule_text(cron),
                _target(cron, names),
                utc_minutes(upcoming_run(cron)),
                "yes" if cron.enabled else "no",
                compact_json(cron.input, INPUT_PREVIEW) if cron.input is not None else "",
            ]
            for cron in crons
        ]
        print_table(["CRON ID", "SCHEDULE", "TARGET", "NEXT RUN (UTC)", "ENABLED", "INPUT"], rows)
        return EXIT_OK

    return run(args, work)


def create_cron(args: argparse.Namespace) -> int:
    # Checked before connecting: a schedule the server would refuse needs no server to say so.
    check = check_schedule(args.schedule, timezone=args.timezone, end_time=args.end_time)
    if check.error is not None:
        return fail(f"--schedule {args.schedule!r}: {check.error}", EXIT_USAGE)
    if not check.next_runs:
        return fail(f"--schedule {args.schedule!r} never fires before --end-time", EXIT_USAGE)

    async def work(client: AgentServerClient) -> int:
        assistant = await assistant_named(client, args.assistant)
        options: dict[str, Any] = {
            "input": _input(args),
            "end_time": args.end_time,
            "timezone": args.timezone,
        }
        if args.thread:
            cron = await client.crons.create_for_thread(
                args.thread, assistant.assistant_id, args.schedule, **options
            )
        else:
            cron = await client.crons.create(assistant.assistant_id, args.schedule, **options)
        if args.json:
            print_json(cron_json(cron))
            return EXIT_OK
        say(cron.cron_id)  # alone on stdout: `id=$(agent-tui crons create …)`
        where = f"on thread {cron.thread_id}" if cron.thread_id else "on a new thread each time"
        runs = ", ".join(utc_minutes(moment) for moment in check.next_runs)
        say(f"runs {assistant.shown} {where}; next (UTC): {runs}", sys.stderr)
        if cron.first_run_id:
            say(f"the server also started a first run now: run {cron.first_run_id}", sys.stderr)
        return EXIT_OK

    return run(args, work, changes="create a cron job")


def delete_cron(args: argparse.Namespace) -> int:
    async def work(client: AgentServerClient) -> int:
        from agent_tui.client import NotFound

        try:
            await client.crons.delete(args.cron_id)
        except NotFound:  # the server's words are a bare "Not Found"
            raise NotThere(f"no cron job {args.cron_id} on the server") from None
        if args.json:
            print_json({"cron_id": args.cron_id, "deleted": True})
        else:
            say(f"deleted cron job {args.cron_id}")
        return EXIT_OK

    return run(args, work, changes="delete a cron job")


def _input(args: argparse.Namespace) -> Any:
    if args.message is not None:
        return message_input(args.message)
    return None if args.input is NOT_GIVEN else args.input


async def _assistant_id(client: AgentServerClient, name: str) -> str:
    """An assistant id for a search (which takes ids only): a graph name is its default
    assistant's."""
    try:
        return str(uuid.UUID(name))
    except ValueError:
        pass
    found = await default_assistant(client, name)
    if found is None:
        await assistant_named(client, name)  # raises `NotThere`, naming the graphs
        raise NotThere(f"no graph {name!r} on the server")
    return found.assistant_id


async def _assistant_names(client: AgentServerClient, ids: set[str | None]) -> dict[str, str]:
    """`chat (eb6db400) v1` for each assistant id; ids the server no longer has (or that
    no URL can carry) are left out."""
    from agent_tui.client import NotFound
    from agent_tui.client.errors import UnusableUrl

    async def label(assistant_id: str) -> tuple[str, str | None]:
        try:
            return assistant_id, assistant_label(await client.assistants.get(assistant_id))
        except (NotFound, UnusableUrl):
            return assistant_id, None

    found = await asyncio.gather(*(label(i) for i in sorted(i for i in ids if i)))
    return {assistant_id: name for assistant_id, name in found if name is not None}


def _target(cron: Cron, names: dict[str, str]) -> str:
    assistant = names.get(cron.assistant_id or "") or short_random_id(cron.assistant_id)
    where = f"thread {cron.thread_id}" if cron.thread_id else "a new thread each run"
    return f"{assistant}, {where}"


def _schedule_text(cron: Cron) -> str:
    return f"{cron.schedule} ({cron.timezone})" if cron.timezone else cron.schedule
