"""The arguments of the control plane commands: `deployments list | watch` (the commands
are `deployments.py`) and `control-plane serve` (`control_plane.py`).

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
    parser.add_argument("--type", metavar="T", help="dev_free, dev or prod")
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
    add_readonly_option(options)  # accepted like everywhere; these commands only read


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
