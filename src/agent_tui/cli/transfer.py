"""`agent-tui export THREAD_ID -o FILE` and `agent-tui import FILE`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    ReadOnlyRefusal,
    fail,
    print_json,
    refuse_if_readonly,
    resolve,
    run,
    say,
)

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


def export_command(args: argparse.Namespace) -> int:
    from agent_tui.threads.export import dump_export, export_thread

    exported: list[dict[str, Any]] = []

    async def work(client: AgentServerClient) -> int:
        from agent_tui.cli.history_diff import resolve_checkpoint

        checkpoint = args.checkpoint
        if checkpoint:  # the same short forms `diff` takes
            checkpoint = await resolve_checkpoint(client, args.thread_id, checkpoint)
        exported.append(await export_thread(client, args.thread_id, checkpoint_id=checkpoint))
        return EXIT_OK

    code = run(args, work)
    if code != EXIT_OK:
        return code
    data = exported[0]
    text = dump_export(data)
    if args.output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    from agent_tui.settings.atomic_file import write_text_atomically

    try:
        # Whole or not at all: a write that fails leaves the file it was to replace.
        write_text_atomically(Path(args.output), text)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        reason = error.strerror if isinstance(error, OSError) else str(error)
        return fail(f"cannot write {args.output}: {reason or error}", EXIT_API_ERROR)
    count = len(data["checkpoints"])
    say(f"exported {count} checkpoints of {args.thread_id} to {args.output}", sys.stderr)
    return EXIT_OK


def import_command(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError
    from agent_tui.settings.contexts import ContextError
    from agent_tui.threads.export import (
        ExportFormatError,
        compare_with_export,
        import_thread,
        load_export,
    )

    # Refused before the file is read: a read-only session changes nothing, whatever
    # the file holds.
    try:
        refuse_if_readonly(resolve(args), "import a thread")
    except (ReadOnlyRefusal, ConfigError, ContextError) as error:
        return fail(error, EXIT_USAGE)
    # A file that is missing or not an export said no: exit 1, like a server that does.
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except (OSError, ValueError) as error:  # ValueError: not UTF-8, or a NUL in the name
        reason = error.strerror if isinstance(error, OSError) else str(error)
        return fail(f"cannot read {args.file}: {reason or error}", EXIT_API_ERROR)
    try:
        data = load_export(text)
    except ExportFormatError as error:
        return fail(f"{args.file}: {error}", EXIT_API_ERROR)

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
            say(thread.thread_id)
        for difference in differences:
            say(f"agent-tui: warning: the new thread differs: {difference}", sys.stderr)
        return EXIT_OK

    return run(args, work, changes="import a thread")
