"""The arguments of the control plane commands: `deployments list | watch` (the commands
are `deployments.py`), `deployments logs | revisions | delete | redeploy`
(`deployment_commands.py`), `deploy` (`deploy.py`) and `control-plane serve`
(`control_plane.py`).

Imported whenever `agent-tui` builds its parser (see `commands.py`), so it imports nothing
but argparse and `common`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent_tui.cli.common import add_readonly_option, url_argument


def deployments_list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", metavar="TEXT", help="name contains TEXT")
    parser.add_argument("--status", metavar="S", help="READY, AWAITING_DATABASE, …")
    parser.add_argument("--type", metavar="T", help="dev_free, dev, prod or dev_zero")
    parser.add_argument("--json", action="store_true", help="print JSON")
    _control_plane_options(parser)


def deployments_watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deployment_id", metavar="DEPLOYMENT_ID")
    parser.add_argument("revision_id", metavar="REVISION_ID", nargs="?")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls")
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after seconds")
    _control_plane_options(parser)


def _control_plane_options(parser: argparse.ArgumentParser) -> None:
    options = parser.add_argument_group("control plane")
    options.add_argument(
        "--control-plane", metavar="URL", type=url_argument, help="the control plane's URL"
    )
    options.add_argument(
        "--control-plane-key", metavar="KEY", help="X-Api-Key for the control plane"
    )
    options.add_argument("--tenant-id", metavar="ID", help="workspace id (X-Tenant-Id)")
    options.add_argument(
        "--context", metavar="NAME", default=argparse.SUPPRESS, help="a saved context"
    )
    add_readonly_option(options)  # `deploy`, `delete` and `redeploy` refuse under it


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    """`control-plane serve`."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8123, help="port (0: any free port)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="state folder (default: <user data>/control-plane)",
    )


def deploy_arguments(parser: argparse.ArgumentParser) -> None:
    """`deploy`: pack the project, upload it, follow its revision."""
    parser.add_argument(
        "--name", metavar="N", help="the deployment's name (default: the project folder's)"
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        default=Path("langgraph.json"),
        help=(
            "the project's langgraph.json; its folder and the local dependencies it names "
            "are packed (default: ./langgraph.json)"
        ),
    )
    parser.add_argument(
        "--secret",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="a secret for the deployment (repeat for more); never printed",
    )
    parser.add_argument(
        "--deployment-type",
        metavar="T",
        help="for a new deployment: dev_free, dev, prod, dev_zero (serverless), dedicated",
    )
    parser.add_argument(
        "--install-command",
        metavar="CMD",
        help="source_config.install_command (run from the archive's root; JS projects)",
    )
    parser.add_argument(
        "--build-command",
        metavar="CMD",
        help="source_config.build_command (run beside langgraph.json; JS projects)",
    )
    parser.add_argument(
        "--no-wait", action="store_true", help="return once the revision is created"
    )
    _follow_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    _control_plane_options(parser)


def deployments_logs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deployment", metavar="DEPLOYMENT", help="a deployment's id or name")
    parser.add_argument("--revision", metavar="ID", help="a revision (default: the latest)")
    parser.add_argument(
        "--type",
        choices=["build", "deploy"],
        default="deploy",
        help="build (a revision's build) or deploy (the agent server's log; the default)",
    )
    parser.add_argument("--level", metavar="L", help="only this level: INFO, WARNING, ERROR, …")
    parser.add_argument("--query", metavar="Q", help="only lines containing Q (any case)")
    parser.add_argument("--start-time", metavar="ISO", help="from this time (ISO 8601)")
    parser.add_argument("--end-time", metavar="ISO", help="until this time (ISO 8601)")
    parser.add_argument(
        "--limit", type=int, default=100, metavar="N", help="the newest N lines (default 100)"
    )
    parser.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="after the newest lines, keep printing new ones until ctrl+c (as tail -f)",
    )
    parser.add_argument(
        "--from-start",
        action="store_true",
        help="with --follow: print every line from the first, not only the newest --limit",
    )
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls")
    parser.add_argument(
        "--json", action="store_true", help="print JSON (one entry a line with --follow)"
    )
    _control_plane_options(parser)


def deployments_revisions_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deployment", metavar="DEPLOYMENT", help="a deployment's id or name")
    parser.add_argument("--json", action="store_true", help="print JSON")
    _control_plane_options(parser)


def deployments_delete_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deployment", metavar="DEPLOYMENT", help="a deployment's id or name")
    parser.add_argument(
        "--force", action="store_true", help="do not ask (needed when stdin is not a terminal)"
    )
    _control_plane_options(parser)


def deployments_redeploy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deployment", metavar="DEPLOYMENT", help="a deployment's id or name")
    parser.add_argument("revision", metavar="REVISION", help="the revision to deploy again")
    parser.add_argument("--json", action="store_true", help="print JSON")
    _control_plane_options(parser)


def _follow_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls")
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after seconds")
