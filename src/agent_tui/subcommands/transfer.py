"""`agent-tui export THREAD_ID -o FILE` and `agent-tui import FILE`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.subcommands.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    print_json,
    run,
)

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


def export_command(args: argparse.Namespace) -> int:
    from agent_tui.thread_export import dump_export, export_thread

    exported: list[dict[str, Any]] = []

    async def work(client: AgentServerClient) -> int:
        exported.append(await export_thread(client, args.thread_id, checkpoint_id=args.checkpoint))
        return EXIT_OK

    code = run(args, work)
    if code != EXIT_OK:
        return code
    data = exported[0]
    text = dump_export(data)
    if args.output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        return fail(f"cannot write {args.output}: {error.strerror or error}", EXIT_API_ERROR)
    count = len(data["checkpoints"])
    print(f"exported {count} checkpoints of {args.thread_id} to {args.output}", file=sys.stderr)
    return EXIT_OK


def import_command(args: argparse.Namespace) -> int:
    from agent_tui.thread_export import (
        ExportFormatError,
        compare_with_export,
        import_thread,
        load_export,
    )

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        return fail(f"cannot read {args.file}: {reason or error}", EXIT_USAGE)
    try:
        data = load_export(text)
    except ExportFormatError as error:
        return fail(f"{args.file}: {error}", EXIT_USAGE)

    async def work(client: AgentServerClient) -> int:
        thread = await import_thread(client, data)
        differences = (
            await compare_with_export(client, data, thread.thread_id) if args.check else []
        )
        if args.json:
            print_json(
                {
                    "thread_id": thread.thread_id,
                    "status": thread.status,
                    "checkpoints": len(data["checkpoints"]),
                    "checked": bool(args.check),
                    "differences": differences,
                }
            )
        else:
            print(thread.thread_id)
        for difference in differences:
            print(f"agent-tui: warning: the new thread differs: {difference}", file=sys.stderr)
        return EXIT_OK

    return run(args, work)
