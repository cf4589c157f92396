"""The `agent-tui` command: parse flags, then open the TUI or run a headless subcommand.

Imports stay lazy: `agent-tui --version`, `--help` and `config path` must answer
without loading Textual or the agent server (both take a noticeable time to import).
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui import __version__

if TYPE_CHECKING:
    from agent_tui.settings.config import AgentTuiConfig
    from agent_tui.settings.contexts import Context
    from agent_tui.settings.target import ServerTarget

logger = logging.getLogger(__name__)

_EPILOG = """\
examples:
  agent-tui                          start a local agent server (./langgraph.json, else the demo graphs)
  agent-tui --url http://localhost:2024
                                     connect to a running server (e.g. `langgraph dev`)
  agent-tui --context staging        connect to a saved context (see `agent-tui config contexts`)
  agent-tui serve [--port N]         the same local server, headless (for Studio, the SDK, curl)
  agent-tui store ls chat            the namespaces of the server's Store (long-term memory)
  agent-tui crons list               cron jobs: schedule, what they run, next run (UTC)
  agent-tui config path              print where the config file lives
  agent-tui config set-context staging --url https://… --api-key-env STAGING_KEY

API keys come from --api-key, else the context's source (api_key_env or a stored key),
else LANGSMITH_API_KEY, LANGGRAPH_API_KEY or LANGCHAIN_API_KEY. LANGSMITH_WORKSPACE_ID
(or LANGSMITH_TENANT_ID) sets X-Tenant-Id when the context has no workspace_id.
AGENT_TUI_CONTEXT picks the context, AGENT_TUI_READONLY=1 forces read-only mode and
AGENT_TUI_CONFIG moves the config file. Flags win over the environment, which wins
over the config file.
Logs go to the user log folder (AGENT_TUI_LOG_LEVEL=DEBUG for more); AGENT_TUI_HOME moves
every agent-tui folder under one directory.
"""


def build_parser(*, with_commands: bool = True) -> argparse.ArgumentParser:
    """The `agent-tui` parser; `with_commands=False`: the TUI's flags alone."""
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        # The TUI's flags alone only try the command line (`_parse`), without a word.
        exit_on_error=with_commands,
        usage="%(prog)s [--url URL | --context NAME] [--api-key KEY] [--readonly] [--no-reload] [--no-traces]\n"
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
        "--context",
        metavar="NAME",
        help="connect to the saved context NAME (`local` is the embedded server)",
    )
    server.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key for --url (sent as X-Api-Key); prefer the environment variables, "
        "since a flag is visible in the process list",
    )
    server.add_argument(
        "--no-reload",
        dest="reload",
        action="store_false",
        help="do not reload the local server when the project's code changes",
    )
    server.add_argument(
        "--no-traces",
        dest="traces",
        action="store_false",
        help="do not trace the local server's runs to agent-tui's collector "
        "(`agent-tui traces`; also AGENT_TUI_TRACES=0 or [traces] enabled = false)",
    )
    server.add_argument(
        "--readonly",
        action="store_true",
        help="refuse every action that would change something on the server",
    )
    # No subcommand: the TUI. Every subcommand is a row of `commands.COMMANDS`.
    parser.set_defaults(handler=None, command_parser=parser)
    if with_commands:
        from agent_tui.cli.commands import add_commands

        add_commands(parser)
    return parser


def _parse(argv: Sequence[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """Start-up time: the subcommands' parsers (about 40: 20-30 ms to import and build,
    before the TUI's first paint) are built only when the command line may name one,
    not for `agent-tui [--url URL | --context NAME] …`, which opens the TUI. Anything
    else (a command, a mistake, --help) is parsed, and answered, as it always was."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if "-h" not in arguments and "--help" not in arguments:
        try:
            args, unknown = build_parser(with_commands=False).parse_known_args(arguments)
        except argparse.ArgumentError:
            unknown = arguments
        if not unknown:
            return args, unknown
    return build_parser().parse_known_args(arguments)


def _without_httpx_command_line() -> None:
    """httpx's own command line (`httpx._main`, which agent-tui never runs) imports click,
    pygments and rich's syntax and progress modules whenever click is installed (it is,
    with the server's uvicorn): a third of the time the client takes to import. httpx
    asks for it with `try: from ._main import main / except ImportError:`; a module set
    to None in `sys.modules` is an ImportError, so `httpx.main` is then httpx's own stub
    saying the CLI is not installed. Only while nothing imported httpx yet."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    _without_httpx_command_line()
    args, unknown = _parse(argv)
    # argparse reports options it does not know with the top-level usage whichever
    # command they follow: report them with the usage of the command they follow.
    parser: argparse.ArgumentParser = args.command_parser
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.url and args.context:
        parser.error("--url and --context are alternatives: give one")
    if args.api_key and not (args.url or args.context):
        parser.error("--api-key needs --url or --context (the local server runs without a key)")
    if args.url:
        from agent_tui.settings.target import normalize_url

        try:
            args.url = normalize_url(args.url)
        except ValueError as error:
            parser.error(f"--url: {error}")
    if not args.traces:
        # For this process and the servers it starts (`local.trace_collector.wiring`).
        import os

        from agent_tui.settings.traces import ENABLED_ENV

        os.environ[ENABLED_ENV] = "0"
    if args.handler is None:
        return _run_tui(args)
    from agent_tui.cli.commands import load_handler
    from agent_tui.settings.logs import setup_stderr_logging

    setup_stderr_logging()
    handler = load_handler(args.handler)
    try:
        code = handler(args)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
    except BrokenPipeError:
        return _reader_went_away()
    return code


def _reader_went_away() -> int:
    """`agent-tui threads list --json | head`: the reader stopped reading, which is no
    error. End quietly, like other Unix tools (whose shells report 128 + SIGPIPE)."""
    import os

    # What is still buffered for stdout can never be written: point stdout at nothing,
    # or Python's final flush reports the broken pipe after all.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE (13), what a shell reports for `cat` in the same place


def _context_from_args(args: argparse.Namespace, config: AgentTuiConfig | None = None) -> Context:
    """Flags > AGENT_TUI_* environment > config file > defaults (see `agent_tui.settings.contexts`).

    Raises ConfigError or ContextError, which say what is wrong and where.
    """
    from agent_tui.settings.contexts import resolve_context, url_context

    if args.url:
        return url_context(args.url, args.api_key)
    if config is None:
        from agent_tui.settings.config import load_config

        config = load_config()
    return resolve_context(config, args.context, api_key=args.api_key)


def _local_without_config_file(args: argparse.Namespace) -> Context | None:
    """The `local` context when nothing names another (else None: the config models
    resolve it, and say what is wrong with it)."""
    import os

    from agent_tui.settings.contexts import CONTEXT_ENV, local_context
    from agent_tui.settings.target import LOCAL_CONTEXT

    named = args.context or os.environ.get(CONTEXT_ENV, "").strip() or LOCAL_CONTEXT
    if args.url or args.api_key or named != LOCAL_CONTEXT:
        return None
    return local_context()


def _target_from_args(args: argparse.Namespace) -> ServerTarget:
    return _context_from_args(args).target


def _run_tui(args: argparse.Namespace) -> int:
    from agent_tui.settings.contexts import ContextError
    from agent_tui.settings.logs import setup_logging
    from agent_tui.settings.paths import config_path

    config: AgentTuiConfig | None = None
    try:
        # Start-up time: without a config file, `--url` and the `local` context have
        # nothing to validate, so the config models (pydantic, 70-100 ms to import) stay
        # out of the first paint's way.
        has_file = config_path().exists()
        context = None if has_file else _local_without_config_file(args)
        if context is None:
            if not args.url or has_file:
                from agent_tui.settings.config import load_config

                config = load_config()
            context = _context_from_args(args, config)
    except Exception as error:
        # Imported here: only a config file that was read can be wrong (see above).
        from agent_tui.settings.config import ConfigError

        if not isinstance(error, ConfigError | ContextError):
            raise
        # A bad file or context is the user's to fix: say what and where, no traceback.
        # Cleaned: the message quotes the file, which may hold anything.
        from agent_tui.text.sanitize import clean_text

        print(f"agent-tui: {clean_text(str(error))}", file=sys.stderr)
        return 2
    target = context.target
    from agent_tui.settings.context_headers import header_secrets
    from agent_tui.settings.target import RemoteServer

    headers = target.headers if isinstance(target, RemoteServer) else ()
    log_path = setup_logging(secrets=[target.api_key or "", *header_secrets(headers)])
    logger.info(
        "agent-tui %s starting: context %r, %r (readonly=%s)",
        __version__,
        context.name,
        target,
        args.readonly or context.readonly,
    )

    # Start-up time: no collections until the app has imported what it connects with
    # (`gc_tuning.resume_after_startup`): what start-up builds lives as long as the app,
    # and walking it again and again took ~5% of the time to the home screen.
    gc.disable()
    from agent_tui.tui.app import AgentTuiApp

    app = AgentTuiApp(
        context,
        readonly=args.readonly,
        config=config,
        keymap=config.keymap if config is not None else None,
        reload=getattr(args, "reload", True),
    )
    try:
        app.run()
    finally:
        gc.enable()  # an app that ended before it connected
        # The app stops it on the way out; this covers an app that crashed before that.
        app.stop_local_server()
        logger.info("agent-tui exited (return code %s)", app.return_code)
    if app.return_code and not app.stopped_by_signal:
        # (A stop signal's exit says nothing: after SIGHUP no terminal is left to read it.)
        reason = f"{app.failure}; " if app.failure else ""
        print(f"agent-tui: {reason}details in {log_path}", file=sys.stderr)
    return app.return_code or 0
