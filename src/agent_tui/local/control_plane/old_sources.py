"""Uploaded sources are kept only while a revision may need them.

When a revision finishes (`Deployer` calls `set_aside_sources` with its last status),
the unpacked source of each uploaded revision — with the environment built beside it
and the tarball it was unpacked from — is kept while the revision is the active one, the
newest other DEPLOYED one (to roll back to) or still on its way; the others' go. Their
records and logs stay: a GET of an old revision still answers, and a redeploy of one
whose source went is refused with a 409 (`DeploymentRoutes.redeploy`): nothing is left
to build it from. Folders of revisions not stored yet (a PATCH unpacking) are left alone.

Going is two steps: renamed into the deployment's ``.removed`` folder at once (quick, so
done before anything awaits: whoever sees the status sees them gone), then deleted in a
thread (`empty_removed`); a ``.removed`` folder left by a stop goes at the next start.
"""

from __future__ import annotations

import logging
import shutil
import uuid
from pathlib import Path

from agent_tui.client.models.control_plane import PENDING_REVISION_STATUSES
from agent_tui.local.control_plane.store import Store
from agent_tui.local.control_plane.uploads import uploaded_revision_folder, uploaded_tarball

logger = logging.getLogger(__name__)


def set_aside_sources(store: Store, data_dir: Path, deployment_id: str) -> None:
    """Move what no kept revision of the deployment needs into its ``.removed`` folder."""
    deployment = store.deployment(deployment_id)
    if deployment is None:
        return
    revisions = store.revisions(deployment_id)  # newest first
    active = deployment.get("active_revision_id")
    previous = next(
        (r["id"] for r in revisions if r["status"] == "DEPLOYED" and r["id"] != active), None
    )
    kept: set[Path] = set()
    stale: set[Path] = set()
    for revision in revisions:
        config = revision["source_revision_config"]
        path = config.get("langgraph_config_path")
        folder = uploaded_revision_folder(data_dir, Path(path)) if path else None
        if folder is None:
            continue  # a langgraph.json on this machine: nothing was copied
        keep = revision["id"] in (active, previous) or revision["status"] in (
            PENDING_REVISION_STATUSES
        )
        object_path = config.get("source_tarball_path")
        tarball = (
            uploaded_tarball(data_dir, deployment_id, object_path)
            if isinstance(object_path, str)
            else None
        )
        for upload in (folder, tarball):
            if upload is not None:
                (kept if keep else stale).add(upload)
    removed = _removed_folder(data_dir, deployment_id)
    for upload in sorted(stale - kept):
        try:
            if upload.exists():
                removed.mkdir(exist_ok=True, mode=0o700)
                upload.rename(removed / f"{upload.name}-{uuid.uuid4().hex[:8]}")
        except OSError as exc:
            logger.warning("cannot remove the old revision source %s: %s", upload, exc)


def empty_removed(data_dir: Path, deployment_id: str) -> None:
    """Delete what `set_aside_sources` set aside (blocking: run it in a thread)."""
    folder = _removed_folder(data_dir, deployment_id)
    try:
        shutil.rmtree(folder)
    except FileNotFoundError:
        pass
    except OSError as exc:
        logger.warning("cannot remove the old revision sources in %s: %s", folder, exc)


def _removed_folder(data_dir: Path, deployment_id: str) -> Path:
    return data_dir / "deployments" / deployment_id / ".removed"
