"""Deploy a project folder as the official `langgraph deploy --remote` does, with no Docker:
what `agent-tui deploy` and the Deployments screen's "deploy this folder" share.

The folder of the `langgraph.json` is packed with the local dependencies and graph files
it names outside it, under their common parent (`project_sources.py`, as the official
CLI's archive), as `.gitignore` says (`source_archive.py`); the deployment with
that name gets a new revision (or is created first, with no source: `POST
/v2/deployments` with an empty `source_revision_config`), the tarball is PUT to the URL
`POST …/upload-url` hands out, and `PATCH …` names it (`revision_source:
internal_source`, `source_tarball_path`, `langgraph_config_path` inside the archive).
Secrets are sent only when given: an existing deployment keeps its own otherwise.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.deployments.project_sources import config_in_archive, project_sources
from agent_tui.deployments.source_archive import pack_paths

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.client.models.control_plane import Deployment


DISALLOWED_IN_COMMANDS = ('"', "`", "\\", "\n", "\r", "\0", "\t", "|", ";", "$", ">", "<")
"""What the official CLI refuses in `--install-command` / `--build-command` (and a lone
`&`, which would run something in the background; `&&` is fine)."""


def command_problem(option: str, command: str) -> str | None:
    """Why the official CLI would refuse ``command``, or None."""
    import re

    if any(char in command for char in DISALLOWED_IN_COMMANDS) or re.search(
        r"(?<!&)&(?:&&)*(?!&)", command
    ):
        return f"{option} contains disallowed characters or patterns"
    return None


class SeveralNamed(Exception):
    """More than one deployment has the name: which one to deploy to is not clear."""


@dataclass(frozen=True)
class FolderDeploy:
    deployment: Deployment  # as the PATCH answered: `latest_revision_id` is the new revision
    revision_id: str | None
    created: bool  # the deployment was created for this deploy
    packed_bytes: int
    packed_root: Path | None = None  # the archive's top: the common parent of what is packed


def never_packed() -> list[Path]:
    """agent-tui's own folders, which must not go up even when they lie in the project
    (computed without creating them)."""
    import platformdirs

    from agent_tui.settings.paths import APP_NAME

    folders = [
        Path(platformdirs.user_data_dir(APP_NAME)),
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_log_dir(APP_NAME)),
    ]
    if home := os.environ.get("AGENT_TUI_HOME"):
        folders.append(Path(home))
    return folders


async def deployment_named(client: ControlPlaneClient, name: str) -> Deployment | None:
    """The deployment called exactly ``name`` (the server's filter is "contains")."""
    named = [d async for d in client.deployments.iter_all(name_contains=name) if d.name == name]
    if len(named) > 1:
        raise SeveralNamed(f"{len(named)} deployments are named {name!r}: give one's id")
    return named[0] if named else None


async def deploy_folder(
    client: ControlPlaneClient,
    config: Path,
    name: str,
    *,
    secrets: Sequence[Mapping[str, str]] | None = None,
    deployment_type: str | None = None,
    never: Iterable[Path] | None = None,
    install_command: str | None = None,
    build_command: str | None = None,
) -> FolderDeploy:
    """Pack ``config``'s project and make it a new revision of the deployment ``name``."""
    sources = await asyncio.to_thread(project_sources, config)
    left_out = list(never_packed() if never is None else never)
    tarball = await asyncio.to_thread(
        pack_paths, sources.root, sources.folders, sources.files, left_out
    )
    existing = await deployment_named(client, name)
    if existing is None:
        created = await client.deployments.create(
            name,
            source_config={"deployment_type": deployment_type} if deployment_type else {},
            source_revision_config={},
            secrets=list(secrets or ()),
        )
        deployment_id = created.id
    else:
        deployment_id = existing.id
    granted = await client.uploads.upload_url(deployment_id)
    await client.uploads.put(granted, tarball)
    commands = {
        key: value
        for key, value in (("install_command", install_command), ("build_command", build_command))
        if value is not None
    }
    patched = await client.deployments.patch(
        deployment_id,
        revision_source="internal_source",
        source_config=commands or None,
        source_revision_config={
            "source_tarball_path": granted.object_path,
            "langgraph_config_path": config_in_archive(config, sources),
        },
        secrets=list(secrets) if secrets else None,
    )
    revision_id = patched.latest_revision_id
    if revision_id is None:
        newest = await client.revisions.list(deployment_id, limit=1)
        revision_id = newest.resources[0].id if newest.resources else None
        if revision_id is not None:
            patched = patched.model_copy(update={"latest_revision_id": revision_id})
    return FolderDeploy(patched, revision_id, existing is None, len(tarball), sources.root)
