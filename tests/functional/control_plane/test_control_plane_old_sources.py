"""Only the active revision and the one deployed before it (to roll back to) keep their
uploaded source; older and failed revisions' unpacked folders (and tarballs) are removed,
their records stay. Redeploying a revision whose source was removed is refused (409) saying why;
redeploying the previous one works. `/v2` answers are checked against the spec.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import NOOP_GRAPH, revision_reaches
from tests.support.control_plane_uploads import checked, create_empty, upload_revision

GOOD = {
    "langgraph.json": json.dumps({"graphs": {"agent": "./agent.py:graph"}}).encode(),
    "agent.py": NOOP_GRAPH.encode(),
}
BROKEN = {**GOOD, "agent.py": b"import module_nobody_has\n"}


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path / "cp") as control_plane:
        yield control_plane


def kept_sources(plane: LocalControlPlane, deployment_id: str) -> set[str]:
    """The revisions whose unpacked folder is still there."""
    folder = plane.data_dir / "deployments" / deployment_id / "revisions"
    return {entry.name for entry in folder.iterdir()} if folder.exists() else set()


def kept_uploads(plane: LocalControlPlane, deployment_id: str) -> int:
    """How many uploaded tarballs are still kept."""
    folder = plane.data_dir / "deployments" / deployment_id / "uploads"
    return len(list(folder.glob("*.tar.gz")))


def deploy(http: httpx.Client, deployment_id: str, files: dict[str, bytes], status: str) -> str:
    revision = str(upload_revision(http, deployment_id, files)["latest_revision_id"])
    revision_reaches(http, deployment_id, revision, status, 120)
    return revision


@pytest.mark.timeout(300)
def test_only_the_active_and_previous_revisions_keep_their_uploaded_source(
    plane: LocalControlPlane,
) -> None:
    headers = {"X-Api-Key": plane.api_key}
    with httpx.Client(base_url=plane.url, headers=headers, trust_env=False, timeout=60) as http:
        did = create_empty(http)["id"]
        first = deploy(http, did, GOOD, "DEPLOYED")
        second = deploy(http, did, GOOD, "DEPLOYED")
        assert kept_sources(plane, did) == {first, second}
        third = deploy(http, did, GOOD, "DEPLOYED")
        assert kept_sources(plane, did) == {second, third}
        broken = deploy(http, did, BROKEN, "BUILD_FAILED")
        assert kept_sources(plane, did) == {second, third}  # the failed one's went too
        assert kept_uploads(plane, did) == 2  # and the tarballs of the two gone

        old = checked(http.get(f"/v2/deployments/{did}/revisions/{first}"))
        assert old.status_code == 200 and old.json()["status"] == "DEPLOYED"  # record kept
        logs = http.get(f"/v2/deployments/{did}/revisions/{broken}/logs").json()["lines"]
        assert any("module_nobody_has" in line for line in logs)

        refused = checked(http.post(f"/v2/deployments/{did}/revisions/{first}/redeploy"))
        assert refused.status_code == 409
        detail = refused.json()["detail"]
        assert f"Revision {first} cannot be redeployed: its uploaded source was removed" in detail
        assert "Upload the project again" in detail

        # Rolling back to the previous revision works: it builds from the kept source.
        rolled = checked(http.post(f"/v2/deployments/{did}/revisions/{second}/redeploy"))
        assert rolled.status_code == 200, rolled.text
        back = rolled.json()["latest_revision_id"]
        revision_reaches(http, did, back, "DEPLOYED", 120)
        deployment = checked(http.get(f"/v2/deployments/{did}")).json()
        assert deployment["active_revision_id"] == back
        assert kept_sources(plane, did) == {second, third}  # the redeploy uses second's
