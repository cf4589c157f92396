"""`agent-tui deploy`: the project in this folder to a control plane, like the official
`langgraph deploy --remote`, with no Docker (its arguments are `control_plane_args.py`).

The folder of `--config` (default `./langgraph.json`) is packed as `.gitignore` says, with
the local dependencies and graph files its `langgraph.json` names outside it
(`deployments/project_sources.py`, `source_archive.py`); `--install-command` and
`--build-command` go in `source_config` as the official CLI sends them (it refuses the
same characters in them); the deployment named `--name` (default: the folder's
name) gets a new revision, or is created first, as the official CLI does it
(`deployments/folder_deploy.py`). The new revision is followed to DEPLOYED (exit 0) or a failure (exit 1),
its build lines printed as they come (`build_logs`, paged with `next_offset`);
`--no-wait` ends once the revision exists. `--json` prints one object at the end. A
secret's value is never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    NotThere,
    UsageError,
    print_json,
    say,
)
from agent_tui.cli.deployments import control_plane_client, refuse_writes, run_control_plane

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.client.models.control_plane import Revision

FAILURE_LINES = 10
"""How many of a failed revision's last log lines `deploy` repeats on stderr (as the
official CLI shows the last build lines)."""


def deploy_command(args: argparse.Namespace) -> int:
    return run_control_plane(_deploy, args)


def _secrets(pairs: list[str]) -> list[dict[str, str]]:
    secrets = []
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"--secret takes NAME=VALUE, not {name.strip() or '=…'!r}")
        secrets.append({"name": name.strip(), "value": value})
    return secrets


def _deployment_type(text: str | None) -> str | None:
    from typing import get_args

    from agent_tui.client.models.control_plane import CLI_DEPLOYMENT_TYPES, DeploymentType

    if text is None:
        return None
    kind = CLI_DEPLOYMENT_TYPES.get(text, text)
    if kind not in get_args(DeploymentType):
        known = ", ".join([*get_args(DeploymentType), *CLI_DEPLOYMENT_TYPES])
        raise UsageError(f"--deployment-type {text!r} is not one of {known}")
    return kind


async def _deploy(args: argparse.Namespace) -> int:
    from agent_tui.deployments.folder_deploy import SeveralNamed, deploy_folder

    refuse_writes(args, "deploy")
    config = args.config if args.config.is_absolute() else Path.cwd() / args.config
    if not config.is_file():
        raise UsageError(f"no {args.config} here: run in the project's folder, or pass --config")
    name = args.name or config.parent.resolve().name
    secrets = _secrets(args.secret)
    kind = _deployment_type(args.deployment_type)
    from agent_tui.deployments.folder_deploy import command_problem

    for option, command in (
        ("--install-command", args.install_command),
        ("--build-command", args.build_command),
    ):
        if command is not None and (problem := command_problem(option, command)):
            raise UsageError(problem)

    async with control_plane_client(args) as client:
        try:
            done = await deploy_folder(
                client,
                config,
                name,
                secrets=secrets or None,
                deployment_type=kind,
                install_command=args.install_command,
                build_command=args.build_command,
            )
        except SeveralNamed as error:
            raise NotThere(str(error)) from None
        deployment_id = done.deployment.id
        if not args.json:
            packed = done.packed_root or config.parent.resolve()
            say(f"packed {packed} ({max(1, done.packed_bytes >> 10)} KiB)")
            what = "created deployment" if done.created else "new revision of deployment"
            say(f"{what} {name} ({deployment_id})")
        revision_id = done.revision_id
        if revision_id is None:
            raise NotThere("the control plane made no revision of the upload")
        result: dict[str, Any] = {
            "deployment_id": deployment_id,
            "name": name,
            "revision_id": revision_id,
            "status": None,
            "url": done.deployment.url,
        }
        if args.no_wait:
            result["status"] = (await client.revisions.get(deployment_id, revision_id)).status
            return _finish(args, result, EXIT_OK)
        if not args.json:
            say(f"revision {revision_id}")
        follower = _BuildFollower(client, deployment_id, revision_id, quiet=args.json)
        revision = await follower.run(args.interval, args.timeout)
        result["status"] = revision.status
        if revision.status == "DEPLOYED":
            result["url"] = (await client.deployments.get(deployment_id)).url
            return _finish(args, result, EXIT_OK)
        result["error"] = list(follower.last_lines)
        return _finish(args, result, EXIT_API_ERROR)


def _finish(args: argparse.Namespace, result: dict[str, Any], code: int) -> int:
    if args.json:
        print_json(result)
        return code
    if code == EXIT_OK and result["status"] == "DEPLOYED":
        say(f"deployed: {result['url'] or '(no URL given)'}")
    elif code == EXIT_OK:
        say(f"revision {result['revision_id']} is {result['status']}")
    else:
        say(f"agent-tui: the revision ended {result['status']}", sys.stderr)
        for line in result.get("error") or []:
            say(f"  {line}", sys.stderr)
    return code


class _BuildFollower:
    """Polls a revision and prints its new build lines, until a terminal status."""

    def __init__(
        self, client: ControlPlaneClient, deployment_id: str, revision_id: str, *, quiet: bool
    ) -> None:
        self.client = client
        self.deployment_id = deployment_id
        self.revision_id = revision_id
        self.quiet = quiet
        self.offset: str | int = 0
        self.logs_served = True
        self.last_lines: deque[str] = deque(maxlen=FAILURE_LINES)

    async def _read_lines(self) -> None:
        from agent_tui.client import NotFound
        from agent_tui.client.control_plane_logs import MAX_LOG_PAGE, LogQuery

        while self.logs_served:
            query = LogQuery(order="asc", limit=MAX_LOG_PAGE, offset=self.offset)
            try:
                page = await self.client.logs.page(
                    "build", self.deployment_id, self.revision_id, query
                )
            except NotFound:
                self.logs_served = False  # a control plane without /v1 logs: statuses only
                return
            for entry in page.logs:
                self.last_lines.append(entry.message)
                if not self.quiet:
                    say(f"  {entry.message}")
            if page.next_offset not in (None, ""):
                self.offset = page.next_offset
            else:
                self.offset = int(self.offset or 0) + len(page.logs)
            sys.stdout.flush()
            if len(page.logs) < MAX_LOG_PAGE:
                return

    async def run(self, interval: float, timeout: float) -> Revision:
        from agent_tui.client import RevisionWaitTimedOut

        deadline = time.monotonic() + timeout
        last_status = None
        while True:
            revision = await self.client.revisions.get(self.deployment_id, self.revision_id)
            await self._read_lines()
            if revision.status != last_status:
                last_status = revision.status
                if not self.quiet:
                    say(f"{revision.status}")
                    sys.stdout.flush()
            if revision.is_terminal:
                await self._read_lines()  # the last lines, written as it ended
                return revision
            if time.monotonic() >= deadline:
                raise RevisionWaitTimedOut(
                    f"revision {self.revision_id} is still {revision.status} after {timeout:g} s",
                    method="GET",
                    url=self.client.transport.url_for(
                        f"/v2/deployments/{self.deployment_id}/revisions/{self.revision_id}"
                    ),
                )
            await asyncio.sleep(interval)
