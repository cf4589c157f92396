"""What every headless subcommand shares: where to connect, running, output, exit codes.

Everything printed for a human goes through `clean_text` (`say`, `print_table`, `fail`):
names, ids, URLs and error bodies come from servers and files, and must not reach the
terminal as escape sequences. JSON output is escaped by `print_json`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from agent_tui.text.escaping import exact_json
from agent_tui.text.fit import cut_end
from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.chat.assistant import ChatAssistant
    from agent_tui.client import AgentServerClient
    from agent_tui.settings.contexts import Context
    from agent_tui.settings.target import LocalServer

EXIT_OK = 0
EXIT_API_ERROR = 1  # the server (or a file) said no
EXIT_USAGE = 2  # bad arguments, or nothing to connect to

NO_SERVER = (
    "no agent server to talk to: pass --url URL (and --api-key KEY or LANGSMITH_API_KEY "
    "if it needs one), --context NAME, or make a saved context current with "
    "`agent-tui config use-context NAME`"
)


class UsageError(Exception):
    """Arguments that cannot work; the message says what to give instead."""


class NotThere(Exception):
    """What the command names is not on the server (exit 1, like the server's own 404)."""


class ReadOnlyRefusal(UsageError):
    """The session is read-only (flag, environment or context) and the command writes."""


def url_argument(text: str) -> str:
    """An argparse type: a usable http(s) URL, or a usage error that says what is wrong."""
    from agent_tui.settings.target import normalize_url

    try:
        return normalize_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_readonly_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """`--readonly` after the subcommand too (`agent-tui import f.json --readonly`)."""
    # SUPPRESS keeps a `--readonly` given before the subcommand.
    parser.add_argument(
        "--readonly",
        action="store_true",
        default=argparse.SUPPRESS,
        help="refuse to change anything on the server",
    )


def add_connection_options(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    # SUPPRESS: a value given before the subcommand (`agent-tui --url U history …`) is
    # kept; argparse would otherwise overwrite it with the subparser's default.
    group = parser.add_argument_group("server")
    group.add_argument(
        "--url",
        metavar="URL",
        type=url_argument,
        default=argparse.SUPPRESS,
        help="the agent server's URL",
    )
    group.add_argument(
        "--api-key",
        metavar="KEY",
        default=argparse.SUPPRESS,
        help="API key (X-Api-Key); LANGSMITH_API_KEY and friends are read too",
    )
    group.add_argument(
        "--context",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="a saved context (default: the config's current context)",
    )
    add_readonly_option(group)
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print JSON (stable keys)")


def resolve(args: argparse.Namespace) -> Context:
    """The context of --url, else --context, else the config's current one; read-only
    when `--readonly` (before or after the subcommand) says so, whatever else does."""
    import dataclasses

    from agent_tui.settings.config import load_config
    from agent_tui.settings.contexts import resolve_context, url_context

    url = getattr(args, "url", None)
    api_key = getattr(args, "api_key", None)
    if url:
        context = url_context(url, api_key)
    else:
        context = resolve_context(load_config(), getattr(args, "context", None), api_key=api_key)
    if getattr(args, "readonly", False):
        context = dataclasses.replace(context, readonly_reason="--readonly is set")
    return context


def refuse_if_readonly(context: Context, what: str) -> None:
    """Raise `ReadOnlyRefusal` when the session may not `what` (e.g. "import a thread")."""
    if context.readonly_reason is not None:
        raise ReadOnlyRefusal(f"read-only mode: cannot {what} ({context.readonly_reason})")


async def connect(args: argparse.Namespace, context: Context | None = None) -> AgentServerClient:
    """A client for `context` (default: `resolve(args)`).

    The `local` context is the local server another process (`agent-tui serve`, the
    app) runs for ./langgraph.json, else for the demo graphs. Raises `UsageError` when
    there is none, and the config's own errors (which say what is wrong and where).
    """
    from agent_tui.client import AgentServerClient
    from agent_tui.settings.target import LocalServer, RemoteServer

    context = resolve(args) if context is None else context
    target = context.target
    if isinstance(target, LocalServer):
        from agent_tui.client.agent_server import STUDIO_HEADERS

        return AgentServerClient(await _running_local_url(target), headers=STUDIO_HEADERS)
    if not isinstance(target, RemoteServer):
        raise UsageError(NO_SERVER)
    headers = dict(target.headers)
    if target.workspace_id:
        headers["X-Tenant-Id"] = target.workspace_id
    return AgentServerClient(target.url, api_key=target.api_key, headers=headers or None)


async def _running_local_url(target: LocalServer) -> str:
    """The URL of the local server running for the target's project (waiting for one
    that is starting); `UsageError` when none runs."""
    from pathlib import Path

    from agent_tui.local import (
        DEFAULT_READY_TIMEOUT,
        default_langgraph_config,
        local_server_data_dir,
        wait_for_running_server,
    )

    config = target.config_path or default_langgraph_config(Path.cwd())
    data_dir = target.data_dir or local_server_data_dir(config)
    try:
        running = await wait_for_running_server(data_dir, DEFAULT_READY_TIMEOUT)
    except TimeoutError as error:
        raise UsageError(str(error)) from None
    if running is None or running.url is None:
        folder = config.parent if target.config_path else Path.cwd()
        raise UsageError(
            f"no local agent server runs for {config}: start one with `agent-tui serve` "
            f"(or open `agent-tui`) in {folder}"
        )
    return running.url


async def assistant_named(client: AgentServerClient, name: str) -> ChatAssistant:
    """What ASSISTANT_OR_GRAPH names, as a run takes it: an assistant id, else a graph
    (its default assistant); `NotThere`, listing the server's graphs, when neither."""
    from agent_tui.chat.assistant import graph_names, named

    found = await named(client, name)
    if found is None:
        graphs = ", ".join(await graph_names(client))
        raise NotThere(f"no assistant or graph {name!r} on the server (its graphs: {graphs})")
    return found


def run(
    args: argparse.Namespace,
    work: Callable[[AgentServerClient], Awaitable[int]],
    *,
    changes: str | None = None,
) -> int:
    """Connect, run `work`, and turn every expected failure into a message and an exit code.

    `changes` says what `work` changes on the server ("import a thread"): a read-only
    session refuses before connecting.
    """
    import asyncio  # here: importing it costs ~0.1 s that `--version` must not pay

    from agent_tui.assistants.lookup import NoSuchAssistant
    from agent_tui.client import ApiError
    from agent_tui.settings.config import ConfigError
    from agent_tui.settings.contexts import ContextError
    from agent_tui.threads.export import ExportError
    from agent_tui.threads.query import QueryError

    async def main() -> int:
        context = resolve(args)
        if changes is not None:
            refuse_if_readonly(context, changes)
        async with await connect(args, context) as client:
            return await work(client)

    try:
        return asyncio.run(main())
    except (UsageError, QueryError, ConfigError, ContextError) as error:
        return fail(error, EXIT_USAGE)
    except (ApiError, NotThere, NoSuchAssistant, ExportError) as error:
        return fail(error, EXIT_API_ERROR)
    except RecursionError:
        # The client refuses a body nested deeper than it can read; one just under that
        # can still be too deep to show (a diff walks it).
        return fail("a value from the server is nested too deep to show", EXIT_API_ERROR)
    except BrokenPipeError:
        raise  # the reader went away: `cli.main` ends quietly
    except OSError as error:  # a file that cannot be read or written
        return fail(error, EXIT_API_ERROR)


def fail(error: object, code: int) -> int:
    say(f"agent-tui: {error}", sys.stderr)
    return code


def say(text: object, out: TextIO | None = None) -> None:
    """Print one message for a human, cleaned of anything a terminal would act on."""
    print(clean_text(str(text)), file=out or sys.stdout)


def print_json(data: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(exact_json(data))
    out.write("\n")


CELL_LIMIT = 120  # characters of one table cell; --json gives every value whole


def print_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], out: TextIO | None = None
) -> None:
    """Columns padded to their widest cell; the last column is not padded.

    Cells are cleaned here, so every table is safe whatever its caller passed, and a
    line break in a cell cannot break the table into more rows. A cell longer than
    `CELL_LIMIT` is cut with `…` (a megabyte in one value made a table of megabytes), and
    stderr says so, and how to see it whole.
    """
    out = out or sys.stdout
    rows = [[" ".join(clean_text(cell).split()) for cell in row] for row in rows]
    long_cells = sum(len(cell) > CELL_LIMIT for row in rows for cell in row)
    if long_cells:
        rows = [[cut_end(cell, CELL_LIMIT) for cell in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    for row in [headers, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
        out.write("  ".join([*cells, row[-1]]).rstrip() + "\n")
    if long_cells:
        several = "values were" if long_cells > 1 else "value was"
        print(
            f"agent-tui: {long_cells} {several} cut to {CELL_LIMIT} characters (…);"
            " --json prints every value whole",
            file=sys.stderr,
        )
