"""Every `agent-tui` subcommand, in one table: its name, its help, the function that adds
its arguments and its handler.

A handler is named, not imported: `"module:function"` in `agent_tui.cli`, loaded only
when the command runs (`load_handler`), so `agent-tui --help`, `--version` and `config
path` answer without importing the client, the chat or the local server. The argument
functions are imported with this table: they live in the light `*_args.py` modules, which
import nothing but argparse and `common`.

Each headless command prints aligned text, or JSON with stable keys under `--json`, and
exits 0 on success, 1 when the server or a file says no (the message goes to stderr, never
a traceback), 2 for bad usage.

A new subcommand is one row here (the `assistants`, `datasets` and `experiments` groups are
in `version_commands.py`): a `Command` (a handler and its arguments) or a `Group`
(subcommands under one name, e.g. `store ls`); `tests/unit/test_readonly_commands.py`
then asks whether it writes.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from agent_tui.cli import (
    config_args,
    control_plane_args,
    crons_args,
    graph_args,
    run_args,
    serve_args,
    store_args,
    threads_args,
    traces_args,
)
from agent_tui.cli.command_types import AddArguments, Command, Group, Handler

__all__ = [
    "COMMANDS",
    "AddArguments",
    "Command",
    "Group",
    "Handler",
    "add_commands",
    "load_handler",
]
from agent_tui.cli.version_commands import VERSION_COMMANDS

COMMANDS: tuple[Command | Group, ...] = (
    Group(
        "config",
        "agent-tui's own configuration",
        (
            Command("path", "print the path of the config file", None, "config:print_path"),
            Command(
                "contexts",
                "list the contexts (never a key: where it comes from)",
                config_args.contexts_arguments,
                "config:list_contexts",
            ),
            Command(
                "set-context",
                "add a context, or change some of its settings",
                config_args.set_context_arguments,
                "config:set_context",
                description="Add the context NAME, or change the settings given for an existing "
                "one. The API key is never an argument: name an environment variable that holds "
                "it (--api-key-env), or store it (--store-api-key reads it from the terminal or "
                "stdin into a file only you can read).",
            ),
            Command(
                "use-context",
                "the context agent-tui opens with",
                config_args.context_name_argument,
                "config:use_context",
            ),
            Command(
                "delete-context",
                "remove a context and its stored key",
                config_args.context_name_argument,
                "config:delete_context",
            ),
            Command(
                "schema",
                "print the config file's JSON schema (for editors that check TOML)",
                None,
                "config:print_schema",
            ),
            Command(
                "keys",
                "list every key binding id (for [keymap]) and check the config's keymap",
                config_args.keys_arguments,
                "config:list_keys",
                description="List every binding id with its keys and what it does; [keymap] ids "
                "that name no binding are reported, and the exit status is then 2.",
            ),
        ),
    ),
    *VERSION_COMMANDS,
    Group(
        "threads",
        "threads on an agent server (headless)",
        (
            Command(
                "list",
                "search threads: by status and metadata, most recently updated first",
                threads_args.list_arguments,
                "threads_list:list_threads",
            ),
        ),
    ),
    Command(
        "history",
        "a thread's checkpoints, most recent first (headless)",
        threads_args.history_arguments,
        "history_diff:show_history",
    ),
    Command(
        "diff",
        "what changed between two checkpoints of a thread (headless)",
        threads_args.diff_arguments,
        "history_diff:show_diff",
    ),
    Command(
        "export",
        "write a thread and its history to a JSON file (headless)",
        threads_args.export_arguments,
        "transfer:export_command",
    ),
    Command(
        "import",
        "recreate an exported thread on a server, print the new thread id (headless)",
        threads_args.import_arguments,
        "transfer:import_command",
    ),
    Group(
        "store",
        "the agent server's long-term memory: namespaces and items (headless)",
        (
            Command(
                "ls",
                "the namespaces under a prefix, one a line",
                store_args.ls_arguments,
                "store_commands:list_namespaces",
            ),
            Command(
                "get",
                "one item: its value, created and updated times",
                store_args.get_arguments,
                "store_commands:get_item",
            ),
            Command(
                "put",
                "create or replace an item",
                store_args.put_arguments,
                "store_commands:put_item",
                description="Create the item, or replace its value if it exists.",
            ),
            Command("rm", "delete an item", store_args.rm_arguments, "store_commands:delete_item"),
            Command(
                "search",
                "the items under a namespace prefix, by filter or query",
                store_args.search_arguments,
                "store_commands:search_items",
                description="The items of NS and of the namespaces under it. --filter matches "
                "value keys exactly; --query ranks by meaning where the server's store has a "
                "vector index (without one it is ignored, and this says so).",
            ),
        ),
        description="Namespaces are written with dots: users.u1.memories. Exit codes: 0 done, "
        "1 the server said no (or the item is not there), 2 bad usage or read-only.",
    ),
    Group(
        "crons",
        "runs on a schedule: list, create, delete cron jobs (headless)",
        (
            Command(
                "list",
                "the cron jobs: schedule, what they run, next run (UTC), enabled",
                crons_args.list_arguments,
                "crons_commands:list_crons",
            ),
            Command(
                "create",
                "run an assistant on a schedule: on a new thread each time, or on one thread",
                crons_args.create_arguments,
                "crons_commands:create_cron",
                description="The schedule is five cron fields (minute hour day-of-month month "
                "day-of-week), in UTC unless --timezone names another zone; it is checked here "
                "before anything is sent, and the next runs are printed.",
            ),
            Command(
                "rm", "delete a cron job", crons_args.rm_arguments, "crons_commands:delete_cron"
            ),
        ),
        description="Exit codes: 0 done, 1 the server said no, 2 bad usage (a schedule that "
        "does not parse, for one) or read-only.",
    ),
    Command(
        "run",
        "start a run and stream it: a new thread, or one that waits (headless)",
        run_args.run_arguments,
        "run:run_command",
        description="Run an assistant (or a graph's default assistant) on a thread and stream "
        "it. Exit codes: 0 the run ended, 3 it stopped at an interrupt or a breakpoint "
        "(what it waits for is printed), 1 the server said no, 2 bad usage, 130 ctrl+c "
        "(the run is cancelled on the server).",
    ),
    Command(
        "graph",
        "draw an assistant's graph: boxes and arrows, Mermaid or JSON (headless)",
        graph_args.graph_arguments,
        "graph:graph_command",
        description="Draw the graph of an assistant (or of a graph's default assistant) top "
        "to bottom: nodes as boxes, conditional edges dashed, loops up the right side. "
        "--xray draws the subgraphs' nodes too. Exit codes: 0 drawn, 1 the server said no "
        "(or has no such assistant or graph), 2 bad usage.",
    ),
    Command(
        "serve",
        "run the project's local agent server headless and print its URL "
        "(agent-tui on the same project connects to it)",
        serve_args.serve_arguments,
        "serve:serve_command",
        description="The project's local agent server with no UI, like `langgraph dev` without "
        "the browser: its environment is built first when its dependencies changed, its URL "
        "is printed once it answers, its log (request lines included) goes to stderr, an "
        "edit to the project reloads it, and ctrl+c stops it.",
    ),
    Command(
        "deploy",
        "deploy the project in this folder to a control plane, no Docker (headless)",
        control_plane_args.deploy_arguments,
        "deploy:deploy_command",
        description="Pack the folder of --config (default ./langgraph.json) as .gitignore "
        "says (never .git, .venv, __pycache__ or agent-tui's folders), upload it, and make "
        "it a new revision of the deployment --name (created if there is none), as the "
        "official `langgraph deploy --remote` does; then print its build lines until it is "
        "DEPLOYED (exit 0) or fails (exit 1). --no-wait ends once the revision exists.",
    ),
    Group(
        "deployments",
        "deployments on a control plane: list, watch, logs, revisions, delete (headless)",
        (
            Command(
                "list",
                "list deployments",
                control_plane_args.deployments_list_arguments,
                "deployments:list_command",
            ),
            Command(
                "watch",
                "print each status change of a revision (default: the latest); "
                "exit 0 on DEPLOYED, 1 on a failure",
                control_plane_args.deployments_watch_arguments,
                "deployments:watch_command",
            ),
            Command(
                "logs",
                "a deployment's build or deploy log lines; --follow keeps printing new ones",
                control_plane_args.deployments_logs_arguments,
                "deployment_commands:logs_command",
            ),
            Command(
                "revisions",
                "a deployment's revisions, newest first",
                control_plane_args.deployments_revisions_arguments,
                "deployment_commands:revisions_command",
            ),
            Command(
                "delete",
                "delete a deployment and stop its agent server (asks unless --force)",
                control_plane_args.deployments_delete_arguments,
                "deployment_commands:delete_command",
            ),
            Command(
                "redeploy",
                "deploy an older revision again, as a new revision",
                control_plane_args.deployments_redeploy_arguments,
                "deployment_commands:redeploy_command",
            ),
        ),
    ),
    Group(
        "traces",
        "every model and tool call of the local servers' runs, kept on this machine (headless)",
        (
            Command(
                "serve",
                "run the local trace collector alone and print its URL "
                "(point LANGSMITH_ENDPOINT at it)",
                traces_args.serve_arguments,
                "traces_commands:serve_command",
                description="LangSmith's ingestion API, on this machine: any program traced "
                "by the langsmith SDK (`langgraph dev`, a LangChain script) sends its runs "
                "here with LANGSMITH_TRACING=true, LANGSMITH_ENDPOINT=<the URL printed> and "
                "LANGSMITH_API_KEY=<the collector's key>. Keys and authorization headers are "
                "redacted before anything is stored. ctrl+c stops it.",
            ),
            Command(
                "list",
                "traces, newest first: model and tool calls, tokens, time",
                traces_args.list_arguments,
                "traces_commands:list_command",
            ),
            Command(
                "show",
                "one trace or run: its tree of calls, and each model call's messages, "
                "parameters and answer",
                traces_args.show_arguments,
                "traces_commands:show_command",
            ),
        ),
        description="Exit codes: 0 done, 1 no such trace (or the store cannot be read), "
        "2 bad usage.",
    ),
    Group(
        "control-plane",
        "a local deployment control plane speaking the LangSmith /v2 API (headless)",
        (
            Command(
                "serve",
                "serve the control plane until Ctrl-C; deployments run as local agent servers",
                control_plane_args.serve_arguments,
                "control_plane:serve_command",
            ),
        ),
    ),
)


def add_commands(
    parser: argparse.ArgumentParser,
    commands: Sequence[Command | Group] = COMMANDS,
    *,
    title: str = "commands",
    required: bool = False,
) -> None:
    """Add `commands` under `parser`, each with its own `prog` (its usage line names the
    whole command: argparse would otherwise build it from the parent's usage).

    Every parser is left in the namespace it parses as `command_parser`, so that a mistake
    is reported with that command's usage line; a command's handler name is `handler`.
    """
    subparsers = parser.add_subparsers(title=title, metavar="COMMAND", prog=parser.prog)
    subparsers.required = required
    for command in commands:
        sub = subparsers.add_parser(
            command.name,
            prog=f"{parser.prog} {command.name}",
            help=command.help,
            description=command.description,
        )
        sub.set_defaults(command_parser=sub)
        if isinstance(command, Group):
            add_commands(sub, command.commands, title=f"{command.name} commands", required=True)
            continue
        if command.arguments is not None:
            command.arguments(sub)
        sub.set_defaults(handler=command.handler)


def load_handler(name: str) -> Handler:
    """The handler `"module:function"` names, its module imported now."""
    module, _, function = name.partition(":")
    handler: Handler = getattr(importlib.import_module(f"agent_tui.cli.{module}"), function)
    return handler
