"""`agent-tui export THREAD_ID -o FILE` and `agent-tui import FILE`."""

from __future__ import annotations

import argparse
import asyncio
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
    if args.with_traces:
        data["traces"] = _thread_traces(args.thread_id)
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
    traced = f" and {len(data['traces'])} traced runs" if args.with_traces else ""
    say(f"exported {count} checkpoints{traced} of {args.thread_id} to {args.output}", sys.stderr)
    return EXIT_OK


def _thread_traces(thread_id: str) -> list[dict[str, Any]]:
    """The runs of the thread's traces in this machine's store (none: said on stderr)."""
    import sqlite3

    from agent_tui.traces.query import StoreUnreadable, open_for_reading
    from agent_tui.traces.transfer import thread_runs

    runs: list[dict[str, Any]] = []
    try:
        store = open_for_reading()
        if store is not None:
            try:
                runs = thread_runs(store, thread_id)
            finally:
                store.close()
    except (StoreUnreadable, sqlite3.Error) as error:
        say(f"agent-tui: {error}", sys.stderr)
    if not runs:
        say(f"agent-tui: no traces of {thread_id} in the trace store", sys.stderr)
    return runs


def _store_traces(runs: list[dict[str, Any]], thread_id: str) -> int:
    """Store an export's traced runs for the new thread; how many."""
    import sqlite3

    from agent_tui.local.trace_collector import default_folder
    from agent_tui.settings.traces import trace_settings
    from agent_tui.traces.store import DB_FILE, TraceStore
    from agent_tui.traces.transfer import rebased_runs, store_runs

    path = default_folder() / DB_FILE
    try:
        store = TraceStore(path, max_bytes=trace_settings().max_bytes)
        try:
            return store_runs(store, rebased_runs(runs, thread_id))
        finally:
            store.close()
    except sqlite3.Error as error:  # said as a file that cannot be written (exit 1)
        raise OSError(f"cannot write the trace store {path}: {error}") from None


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
    from agent_tui.traces.transfer import TracesFormatError, checked_runs

    try:
        data = load_export(text)
        runs = checked_runs(data["traces"]) if "traces" in data else None
    except (ExportFormatError, TracesFormatError) as error:
        return fail(f"{args.file}: {error}", EXIT_API_ERROR)

    async def work(client: AgentServerClient) -> int:
        thread = await import_thread(client, data)
        differences = (
            await compare_with_export(client, data, thread.thread_id) if args.check else []
        )
        traced = None
        if runs is not None:
            traced = await asyncio.to_thread(_store_traces, runs, thread.thread_id)
        if args.json:
            print_json(
                {
                    "thread_id": thread.thread_id,
                    "status": thread.status,
                    "checkpoints": len(data["checkpoints"]),
                    "checked": bool(args.check),
                    "differences": differences,
                    "traced_runs": traced,
                }
            )
        else:
            say(thread.thread_id)
            if traced is not None:
                say(f"stored {traced} traced runs for it in the trace store", sys.stderr)
        for difference in differences:
            say(f"agent-tui: warning: the new thread differs: {difference}", sys.stderr)
        return EXIT_OK

    return run(args, work, changes="import a thread")
