"""Headless subcommands: `threads list`, `history`, `diff`, `export`, `import`, `store`,
`crons`, `run`, `serve`.

Scriptable versions of the thread view's actions, and the project's local server. Each
prints aligned text, or JSON with stable keys under `--json`, and exits 0 on success, 1
when the server or a file says no (the message goes to stderr, never a traceback), 2 for
bad usage.

Registering them imports only argparse: the handlers import the client when they run, so
`agent-tui --version` and `--help` stay fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from agent_tui.cli.common import add_connection_options


def add_headless_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add the thread subcommands to the `agent-tui` parser's subcommands."""
    threads = commands.add_parser(
        "threads", prog="agent-tui threads", help="threads on an agent server (headless)"
    )
    thread_commands = threads.add_subparsers(title="threads commands", metavar="COMMAND")
    thread_commands.required = True
    listing = thread_commands.add_parser(
        "list",
        prog="agent-tui threads list",
        help="search threads: by status and metadata, most recently updated first",
    )
    listing.add_argument(
        "--status", metavar="S", help="idle, busy, interrupted or error (default: any)"
    )
    listing.add_argument(
        "--metadata",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="exact metadata match; repeat for more keys (a JSON value is parsed: n=3, ok=true)",
    )
    listing.add_argument("--limit", metavar="N", default="20", help="at most N threads (1-1000)")
    add_connection_options(listing)
    listing.set_defaults(handler=_lazy("threads_list", "list_threads"))

    history = commands.add_parser(
        "history",
        prog="agent-tui history",
        help="a thread's checkpoints, most recent first (headless)",
    )
    history.add_argument("thread_id", metavar="THREAD_ID")
    history.add_argument(
        "--limit", metavar="N", type=int, default=50, help="at most N checkpoints (0: all)"
    )
    add_connection_options(history)
    history.set_defaults(handler=_lazy("history_diff", "show_history"))

    diff = commands.add_parser(
        "diff",
        prog="agent-tui diff",
        help="what changed between two checkpoints of a thread (headless)",
    )
    diff.add_argument("thread_id", metavar="THREAD_ID")
    diff.add_argument(
        "checkpoint_a", metavar="CHECKPOINT_A", help="checkpoint id (or its last 8 digits)"
    )
    diff.add_argument("checkpoint_b", metavar="CHECKPOINT_B")
    add_connection_options(diff)
    diff.set_defaults(handler=_lazy("history_diff", "show_diff"))

    export = commands.add_parser(
        "export",
        prog="agent-tui export",
        help="write a thread and its history to a JSON file (headless)",
    )
    export.add_argument("thread_id", metavar="THREAD_ID")
    export.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="the file to write ('-': stdout)"
    )
    export.add_argument(
        "--checkpoint",
        metavar="ID",
        help="export the branch ending at this checkpoint (default: the latest checkpoint's)",
    )
    add_connection_options(export, json_flag=False)
    export.set_defaults(handler=_lazy("transfer", "export_command"))

    imported = commands.add_parser(
        "import",
        prog="agent-tui import",
        help="recreate an exported thread on a server, print the new thread id (headless)",
    )
    imported.add_argument("file", metavar="FILE", help="a file written by `agent-tui export`")
    imported.add_argument(
        "--no-check",
        dest="check",
        action="store_false",
        help="skip comparing the new thread's history with the file",
    )
    add_connection_options(imported)
    imported.set_defaults(handler=_lazy("transfer", "import_command"))

    from agent_tui.cli.crons_args import add_crons_parser
    from agent_tui.cli.store_args import add_store_parser

    add_store_parser(commands, lambda name: _lazy("store_commands", name))
    add_crons_parser(commands, lambda name: _lazy("crons_commands", name))

    from agent_tui.cli.run_args import add_run_parser

    run = add_run_parser(commands)
    run.set_defaults(handler=_lazy("run", "run_command"))

    serve = commands.add_parser(
        "serve",
        prog="agent-tui serve",
        help="run the project's local agent server headless and print its URL "
        "(agent-tui on the same project connects to it)",
        description="The project's local agent server with no UI, like `langgraph dev` without "
        "the browser: its environment is built first when its dependencies changed, its URL "
        "is printed once it answers, its log (request lines included) goes to stderr, an "
        "edit to the project reloads it, and ctrl+c stops it.",
    )
    serve.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="the project's langgraph.json (default: ./langgraph.json, else the demo graphs)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_port, help="port to listen on (default: a free one)")
    serve.add_argument(
        "--no-reload",
        dest="reload",
        action="store_false",
        help="do not restart the server when the project's files change",
    )
    serve.set_defaults(handler=_lazy("serve", "serve_command"))


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"must be between 1 and 65535, got {port}")
    return port


def _lazy(module: str, function: str) -> Callable[[argparse.Namespace], int]:
    """A handler that imports `agent_tui.cli.<module>` only when it runs."""

    def handler(args: argparse.Namespace) -> int:
        import importlib

        loaded = importlib.import_module(f"agent_tui.cli.{module}")
        result: int = getattr(loaded, function)(args)
        return result

    return handler
