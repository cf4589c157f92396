"""Each revision of the local control plane says which secret NAMES it was built with
(`secret_names`, never the values), so the revision diff can say which were added or
removed — also for revisions stored before the field existed.

The deployments point at a config that fails to build (fast): the names are the
revision's, whatever its build does. Every answer is checked against the spec.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx

from agent_tui.client import ControlPlaneClient, RetryPolicy
from agent_tui.deployments.revision_diff import UNKNOWN_NAMES, diff_revisions
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.local.control_plane.app import DB_FILE
from tests.support.control_plane import SpecCheckingTransport

MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}
VALUES = ("s3cr3t-first-value", "s3cr3t-second-value")


class RecordingTransport(SpecCheckingTransport):
    """Checks every answer against the spec and keeps its body (to look for values)."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[tuple[str, bytes]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        self.bodies.append((request.url.path, response.content))
        return response


def _client(plane: LocalControlPlane, transport: RecordingTransport) -> ControlPlaneClient:
    return ControlPlaneClient(
        plane.url,
        api_key=plane.api_key,
        http_transport=transport,
        retry=RetryPolicy(attempts=1),
    )


async def test_revisions_name_their_secrets_and_the_diff_says_what_was_added(
    tmp_path: Path,
) -> None:
    transport = RecordingTransport()
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with _client(plane, transport) as client:
            created = await client.deployments.create(
                "secrets",
                source_revision_config=MISSING_CONFIG,
                secrets=[{"name": "FIRST_KEY", "value": VALUES[0]}],
            )
            patched = await client.deployments.patch(
                created.id,
                secrets=[
                    {"name": "FIRST_KEY", "value": VALUES[0]},
                    {"name": "SECOND_KEY", "value": VALUES[1]},
                ],
            )
            newer, older = (await client.revisions.list(created.id)).resources
            assert older.id == created.latest_revision_id
            assert newer.id == patched.latest_revision_id
            assert older.raw()["secret_names"] == ["FIRST_KEY"]
            assert newer.raw()["secret_names"] == ["FIRST_KEY", "SECOND_KEY"]
            one = await client.revisions.get(created.id, older.id)
            assert one.raw()["secret_names"] == ["FIRST_KEY"]
            await client.revisions.logs(created.id, older.id)

            # Without the deployment (which knows only its latest revision's names).
            diff = diff_revisions(newer, older)
            assert diff.secrets_known
            assert diff.secrets_added == ["SECOND_KEY"]
            assert diff.secrets_removed == []
            assert "  + SECOND_KEY" in diff.lines()
            assert UNKNOWN_NAMES not in "\n".join(diff.lines())

    revision_bodies = [body for path, body in transport.bodies if "/revisions" in path]
    assert len(revision_bodies) == 3  # list, get, logs
    for body in revision_bodies:
        assert not any(value.encode() in body for value in VALUES)


async def test_a_data_folder_from_before_the_names_keeps_working(tmp_path: Path) -> None:
    data = tmp_path / "cp"
    with LocalControlPlane(data) as plane:
        async with _client(plane, RecordingTransport()) as client:
            created = await client.deployments.create(
                "old",
                source_revision_config=MISSING_CONFIG,
                secrets=[{"name": "OLD_KEY", "value": VALUES[0]}],
            )
            patched = await client.deployments.patch(
                created.id, secrets=[{"name": "NEW_KEY", "value": VALUES[1]}]
            )
    # What an older version left behind: documents without the field, and one revision
    # whose secrets column does not hold name/value pairs.
    with sqlite3.connect(data / DB_FILE) as db:
        for (doc,) in db.execute("SELECT doc FROM revisions").fetchall():
            assert "secret_names" not in json.loads(doc)  # never stored, derived on read
        db.execute(
            "UPDATE revisions SET secrets = '\"garbled\"' WHERE id = ?",
            (created.latest_revision_id,),
        )
    db.close()

    with LocalControlPlane(data) as plane:
        async with _client(plane, RecordingTransport()) as client:
            newer, older = (await client.revisions.list(created.id)).resources
            assert newer.id == patched.latest_revision_id
            assert newer.raw()["secret_names"] == ["NEW_KEY"]
            assert "secret_names" not in older.raw()  # unknown, not "none"
            diff = diff_revisions(older, newer)
            assert not diff.secrets_known
            assert UNKNOWN_NAMES in "\n".join(diff.lines())
