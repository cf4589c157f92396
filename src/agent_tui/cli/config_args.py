"""The arguments of `agent-tui config …`; the commands are `config.py`.

Imported whenever `agent-tui` builds its parser (see `commands.py`), so it imports only
argparse. No argument ever takes an API key: `set-context` names where it comes from.
"""

from __future__ import annotations

import argparse


def contexts_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")


def set_context_arguments(parser: argparse.ArgumentParser) -> None:
    parser.allow_abbrev = False  # `--api-key KEY` must not pass for `--api-key-env`
    parser.add_argument("name", metavar="NAME")
    parser.add_argument(
        "--url",
        dest="agent_server_url",
        metavar="URL",
        help="the agent server URL (needed for a new one)",
    )
    parser.add_argument("--control-plane-url", metavar="URL", help="the control plane API URL")
    key = parser.add_mutually_exclusive_group()
    key.add_argument("--api-key-env", metavar="VAR", help="environment variable with the API key")
    key.add_argument(
        "--store-api-key",
        action="store_true",
        help="read the API key from the terminal (or stdin) and store it, mode 0600",
    )
    parser.add_argument("--workspace-id", metavar="ID", help="workspace (tenant) id: X-Tenant-Id")
    parser.add_argument(
        "--readonly",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="refuse every change on this context's server (--no-readonly: allow them)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="send a header to the agent server; secret parts as {env:VAR} or {file:PATH}, "
        "e.g. 'Authorization=Bearer {env:TOKEN}' (repeatable)",
    )
    parser.add_argument(
        "--store-header",
        action="append",
        default=[],
        metavar="NAME",
        help="read the header's value from the terminal (or stdin) and store it, mode 0600",
    )
    parser.add_argument(
        "--remove-header", action="append", default=[], metavar="NAME", help="stop sending it"
    )


def context_name_argument(parser: argparse.ArgumentParser) -> None:
    """`use-context NAME`, `delete-context NAME`."""
    parser.add_argument("name", metavar="NAME")


def keys_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
