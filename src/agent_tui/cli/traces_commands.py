"""`agent-tui traces serve | list | show` (arguments: `traces_args.py`): the local trace
collector alone, and the traces it stored, read from the store (no server needed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.cli.common import EXIT_API_ERROR, EXIT_OK, fail, print_json, print_table, say

if TYPE_CHECKING:
    from agent_tui.traces.query import TracedRun, TraceSummary
    from agent_tui.traces.store import TraceStore
    from agent_tui.traces.totals import RunTotals


def _folder(args: argparse.Namespace) -> Path:
    from agent_tui.local.trace_collector import default_folder

    folder: Path | None = args.data_dir
    return folder.expanduser() if folder is not None else default_folder()


def serve_command(args: argparse.Namespace) -> int:
    from agent_tui.local.trace_collector.server import (
        KEY_ENV,
        KEY_FILE,
        bind_socket,
        collector_key,
        http_url,
        uvicorn_server,
    )
    from agent_tui.settings.traces import trace_settings
    from agent_tui.traces.redaction import Redactor
    from agent_tui.traces.store import DB_FILE, TraceStore

    folder = _folder(args)
    max_mb = args.max_size_mb or trace_settings().max_size_mb
    try:
        key = collector_key(folder)
        store = TraceStore(
            folder / DB_FILE, max_bytes=max_mb * 1024 * 1024, redactor=Redactor([key])
        )
    except (OSError, ValueError) as error:
        return fail(f"cannot open the trace store in {folder}: {error}", EXIT_API_ERROR)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as error:
        store.close()
        reason = error.strerror or error
        return fail(f"cannot listen on {args.host}:{args.port}: {reason}", EXIT_API_ERROR)
    url = http_url(args.host, sock.getsockname()[1])
    import os

    # Where the key is, never the key: the terminal is no place for a secret.
    from_env = bool(os.environ.get(KEY_ENV, "").strip())
    key_value = f"${KEY_ENV}" if from_env else f"$(cat {folder / KEY_FILE})"
    print(url, flush=True)
    say(
        f"trace collector on {url} (runs in {folder / DB_FILE}, up to {max_mb} MB)\n"
        "trace a LangChain program or `langgraph dev` here with:\n"
        f"  export LANGSMITH_TRACING=true LANGSMITH_ENDPOINT={url}\n"
        f'  export LANGSMITH_API_KEY="{key_value}"\n'
        "then `agent-tui traces list`; ctrl+c stops it",
        sys.stderr,
    )
    sys.stderr.flush()
    try:
        uvicorn_server(store, key, compression=args.compression).run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn raises the ctrl+c again once it has shut down: a clean stop
    finally:
        store.close()
    return EXIT_OK


def _open(args: argparse.Namespace) -> TraceStore | None:
    from agent_tui.traces.query import open_for_reading
    from agent_tui.traces.store import DB_FILE

    return open_for_reading(_folder(args) / DB_FILE)


def _duration(summary: TraceSummary) -> str:
    if summary.start_time is None or summary.end_time is None:
        return "-"
    return f"{(summary.end_time - summary.start_time).total_seconds():.2f}s"


def _unreadable(error: Exception) -> int:
    return fail(error, EXIT_API_ERROR)


def list_command(args: argparse.Namespace) -> int:
    import sqlite3

    from agent_tui.text.time_text import utc_seconds
    from agent_tui.traces.query import StoreUnreadable, list_traces
    from agent_tui.traces.totals import NOT_REPORTED, tokens_pair

    try:
        store = _open(args)
        found: list[TraceSummary] = []
        if store is not None:
            try:
                found = list_traces(store, thread_id=args.thread, run_id=args.run, limit=args.limit)
            finally:
                store.close()
    except (StoreUnreadable, sqlite3.Error) as error:
        return _unreadable(error)
    if args.json:
        print_json([summary.as_json() for summary in found])
        return EXIT_OK
    if not found:
        which = (
            f" for run {args.run}"
            if args.run
            else f" for thread {args.thread}"
            if args.thread
            else ""
        )
        say(f"agent-tui: no traces{which} in the trace store", sys.stderr)
        return EXIT_OK
    rows = [
        [
            summary.trace_id,
            utc_seconds(summary.start_time),
            summary.status,
            summary.name or "",
            summary.thread_id or "-",
            f"{summary.model_calls}/{summary.tool_calls}",
            tokens_pair(summary.input_tokens, summary.output_tokens) or NOT_REPORTED,
            _duration(summary),
        ]
        for summary in found
    ]
    headers = ["TRACE", "STARTED (UTC)", "STATUS", "NAME", "THREAD", "MODEL/TOOL"]
    print_table([*headers, "TOKENS IN→OUT", "TIME"], rows)
    return EXIT_OK


def _totals(run: TracedRun) -> RunTotals:
    from agent_tui.traces.totals import configured_prices, run_totals

    wall = (run.start_time, run.end_time)
    return run_totals(run.calls(), wall=wall, prices=configured_prices())


def show_command(args: argparse.Namespace) -> int:
    import sqlite3

    from agent_tui.traces.query import StoreUnreadable, get_run
    from agent_tui.traces.run_view import call_detail_lines, run_json, tree_lines

    run = None
    try:
        store = _open(args)
        if store is not None:
            try:
                run = get_run(store, args.run_id)
            finally:
                store.close()
    except (StoreUnreadable, sqlite3.Error) as error:
        return _unreadable(error)
    if run is None:
        return fail(f"no trace or run {args.run_id!r} in the trace store", EXIT_API_ERROR)
    totals = _totals(run)
    if args.json:
        print_json({**run_json(run), "totals": totals.as_json()})
        return EXIT_OK
    say(f"trace {run.trace_id}  thread {run.thread_id or '-'}")
    for line in tree_lines(run):
        say(line)
    say(f"totals: {totals.text()}")
    calls = [call for call in run.walk() if call.run_type == "llm"]
    for number, call in enumerate(calls, 1):
        say(f"\nmodel call {number}: {call.name} ({call.id})")
        for line in call_detail_lines(call):
            say(line)
    return EXIT_OK
