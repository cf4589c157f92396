"""The `agent-tui` command: parse flags, then open the TUI or run a headless subcommand.

Imports stay lazy: `agent-tui --version`, `--help` and `config path` must answer
without loading Textual or the agent server (both take a noticeable time to import).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agent_tui import __version__

if TYPE_CHECKING:
    from agent_tui.target import ServerTarget

logger = logging.getLogger(__name__)

Handler = Callable[[argparse.Namespace], int]

_EPILOG = """\
examples:
  agent-tui                          start a local agent server (./langgraph.json, else the demo graphs)
  agent-tui --url http://localhost:2024
                                     connect to a running server (e.g. `langgraph dev`)
  agent-tui config path              print where the config file lives

API keys come from --api-key, else LANGSMITH_API_KEY, LANGGRAPH_API_KEY or LANGCHAIN_API_KEY.
Logs go to the user log folder (AGENT_TUI_LOG_LEVEL=DEBUG for more); AGENT_TUI_HOME moves
every agent-tui folder under one directory.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        usage="%(prog)s [--url URL [--api-key KEY]] [--readonly]\n"
        "       %(prog)s COMMAND ...\n"
        "       %(prog)s --version | --help",
        description="A terminal app for LangGraph agent servers: assistants, threads, "
        "checkpoints and streamed runs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
    server = parser.add_argument_group("server")
    server.add_argument(
        "--url",
        metavar="URL",
        help="connect to the agent server at URL instead of starting a local one",
    )
    server.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key for --url (sent as X-Api-Key); prefer the environment variables, "
        "since a flag is visible in the process list",
    )
    server.add_argument(
        "--readonly",
        action="store_true",
        help="refuse every action that would change something on the server",
    )
    parser.set_defaults(handler=_run_tui)

    # Headless subcommands. Later: threads, history, diff, export, import, control-plane.
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    config = commands.add_parser("config", help="agent-tui's own configuration")
    config_commands = config.add_subparsers(title="config commands", metavar="COMMAND")
    config_commands.required = True
    path = config_commands.add_parser("path", help="print the path of the config file")
    path.set_defaults(handler=_config_path)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.api_key and not args.url:
        parser.error("--api-key needs --url (the local server runs without a key)")
    if args.url:
        from agent_tui.target import normalize_url

        try:
            args.url = normalize_url(args.url)
        except ValueError as error:
            parser.error(f"--url: {error}")
    handler: Handler = args.handler
    return handler(args)


def _config_path(args: argparse.Namespace) -> int:
    from agent_tui import paths

    print(paths.config_file())
    return 0


def _target_from_args(args: argparse.Namespace) -> ServerTarget:
    from agent_tui.target import LocalServer, RemoteServer, api_key_from_env

    if args.url:
        return RemoteServer(url=args.url, api_key=args.api_key or api_key_from_env())
    return LocalServer()  # the app picks ./langgraph.json or the demo graphs


def _run_tui(args: argparse.Namespace) -> int:
    from agent_tui.logs import setup_logging

    target = _target_from_args(args)
    log_path = setup_logging(secrets=[target.api_key or ""])
    logger.info("agent-tui %s starting: %r (readonly=%s)", __version__, target, args.readonly)

    from agent_tui.app import AgentTuiApp

    app = AgentTuiApp(target, readonly=args.readonly)
    try:
        app.run()
    finally:
        # The app stops it on the way out; this covers an app that crashed before that.
        app.stop_local_server()
        logger.info("agent-tui exited (return code %s)", app.return_code)
    if app.return_code:
        reason = f"{app.failure}; " if app.failure else ""
        print(f"agent-tui: {reason}details in {log_path}", file=sys.stderr)
    return app.return_code or 0
