"""`agent-tui deployments list|watch`: the control plane from scripts (headless; the
arguments are `control_plane_args.py`), and what every control plane command shares:
finding the control plane, a deployment by id or name, the read-only refusal, running.

The control plane is `--control-plane URL`, else the context's `control_plane_url`. The
key is `--control-plane-key`, else `AGENT_TUI_CONTROL_PLANE_KEY`, else the context's key (which
reads LANGSMITH_API_KEY and friends); the workspace is `--tenant-id`, else the context's.
Exit codes: 0 done (for `watch`: DEPLOYED), 1 the server said no or the revision failed,
2 bad usage.

What the control plane sends (names, statuses, URLs, log lines) is cleaned before it is
printed, and `list --json` masks secret values as the app does.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    NotThere,
    UsageError,
    fail,
    print_json,
    print_table,
    say,
)
from agent_tui.text.short_ids import is_uuid, short_random_id

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.client.models.control_plane import Deployment

NO_KEY = (
    "no control plane key was sent: pass --control-plane-key KEY or set "
    "AGENT_TUI_CONTROL_PLANE_KEY (a local control plane's key is the api-key file in its data "
    "folder, named by `agent-tui control-plane serve`), or use a context that has one"
)
NO_CONTROL_PLANE = (
    "no control plane to talk to: pass --control-plane URL (e.g. a local one from "
    "`agent-tui control-plane serve`), or set control_plane_url in a context"
)


def control_plane_client(args: argparse.Namespace) -> ControlPlaneClient:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.settings.target import RemoteServer

    url: str | None = args.control_plane
    api_key: str | None = args.control_plane_key or os.environ.get("AGENT_TUI_CONTROL_PLANE_KEY")
    tenant_id: str | None = args.tenant_id
    if not url or not api_key or not tenant_id:
        from agent_tui.settings.config import load_config
        from agent_tui.settings.contexts import resolve_context

        context = resolve_context(load_config(), getattr(args, "context", None))
        url = url or context.control_plane_url
        if not api_key and isinstance(context.target, RemoteServer):
            api_key = context.target.api_key
        tenant_id = tenant_id or context.workspace_id
    if not url:
        raise UsageError(NO_CONTROL_PLANE)
    return ControlPlaneClient(url, api_key=api_key, tenant_id=tenant_id)


def refuse_writes(args: argparse.Namespace, what: str) -> None:
    """`ReadOnlyRefusal` when `--readonly`, `AGENT_TUI_READONLY` or (without
    `--control-plane`) the context makes the session read-only."""
    from agent_tui.cli.common import ReadOnlyRefusal
    from agent_tui.settings.contexts import env_readonly_reason

    reason = "--readonly is set" if getattr(args, "readonly", False) else env_readonly_reason()
    if reason is None and not args.control_plane:
        from agent_tui.settings.config import load_config
        from agent_tui.settings.contexts import resolve_context

        reason = resolve_context(load_config(), getattr(args, "context", None)).readonly_reason
    if reason is not None:
        raise ReadOnlyRefusal(f"read-only mode: cannot {what} ({reason})")


async def find_deployment(
    client: ControlPlaneClient, text: str, *, missing_ok: bool = False
) -> Deployment | None:
    """The deployment ``text`` names: an id, else an exact name. `NotThere` when none
    (None with ``missing_ok``) or when several share the name."""
    from agent_tui.client import NotFound

    if is_uuid(text):
        try:
            return await client.deployments.get(text)
        except NotFound:
            if missing_ok:
                return None
            raise NotThere(f"no deployment {text}") from None
    from agent_tui.deployments.folder_deploy import SeveralNamed, deployment_named

    try:
        named = await deployment_named(client, text)
    except SeveralNamed as error:
        raise NotThere(str(error)) from None
    if named is None and not missing_ok:
        raise NotThere(f"no deployment named {text!r}")
    return named


async def _list(args: argparse.Namespace) -> int:
    from agent_tui.text.time_text import utc_minutes

    async with control_plane_client(args) as client:
        found = [
            d
            async for d in client.deployments.iter_all(
                name_contains=args.name, status=args.status, deployment_type=args.type
            )
        ]
    if args.json:
        from agent_tui.deployments.secrets import mask_secrets

        print_json([mask_secrets(d.raw()) for d in found])
        return EXIT_OK
    rows = [
        [
            d.name,
            d.status,
            short_random_id(d.active_revision_id or "-"),
            short_random_id(d.latest_revision_id or "-"),
            utc_minutes(d.updated_at, missing=""),
            d.url or "",
        ]
        for d in found
    ]
    print_table(["NAME", "STATUS", "ACTIVE", "LATEST", "UPDATED", "URL"], rows)
    return EXIT_OK


async def _watch(args: argparse.Namespace) -> int:
    from agent_tui.client import ApiError
    from agent_tui.text.time_text import now_utc, utc_clock

    async with control_plane_client(args) as client:
        revision_id = args.revision_id
        if revision_id is None:
            revision_id = (await client.deployments.get(args.deployment_id)).latest_revision_id
            if revision_id is None:
                raise NotThere(f"deployment {args.deployment_id} has no revision")
        last = None
        async for revision in client.wait_for_revision(
            args.deployment_id, revision_id, interval=args.interval, timeout=args.timeout
        ):
            last = revision
            say(f"{utc_clock(now_utc())}  {revision.status}")
            sys.stdout.flush()  # one line per change, as it happens, even into a pipe
        if last is not None and last.status == "DEPLOYED":
            url = (await client.deployments.get(args.deployment_id)).url
            if url:
                say(f"agent server: {url}")
            return EXIT_OK
        try:
            logs = await client.logs.revision_log(args.deployment_id, revision_id)
        except ApiError:
            return EXIT_API_ERROR  # not every control plane serves build logs
        for line in logs.lines[-20:]:
            say(f"  {line}")
        return EXIT_API_ERROR


def list_command(args: argparse.Namespace) -> int:
    return run_control_plane(_list, args)


def watch_command(args: argparse.Namespace) -> int:
    return run_control_plane(_watch, args)


def run_control_plane(
    work: Callable[[argparse.Namespace], Coroutine[Any, Any, int]], args: argparse.Namespace
) -> int:
    import asyncio  # here: `--version` must not pay for it

    from agent_tui.client import ApiError, Unauthorized
    from agent_tui.deployments.source_archive import ArchiveError
    from agent_tui.settings.config import ConfigError
    from agent_tui.settings.contexts import ContextError

    try:
        return asyncio.run(work(args))
    except (UsageError, ConfigError, ContextError) as error:
        return fail(error, EXIT_USAGE)
    except Unauthorized as error:
        sent_none = error.auth_scheme.startswith("none")
        return fail(f"{error}\n{NO_KEY}" if sent_none else error, EXIT_API_ERROR)
    except (ApiError, NotThere, ArchiveError) as error:
        return fail(error, EXIT_API_ERROR)
    except KeyboardInterrupt:
        return 130  # ctrl+c ends `--follow`: nothing is left to undo
    except BrokenPipeError:
        raise  # the reader went away: `cli.main` ends quietly
    except OSError as error:  # a project file that cannot be read
        return fail(error, EXIT_API_ERROR)
