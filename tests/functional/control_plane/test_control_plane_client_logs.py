"""agent-tui's control plane client reads logs as LangSmith serves them (issue 23): the
`/v1` build and deploy logs with their filters, paged with `next_offset`, through a
base URL with a path prefix (a self-hosted LangSmith's `/api-host`) and a workspace id.
A control plane without the `/v1` logs (a 404 there) is asked its older `…/logs`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.client import ControlPlaneClient, NotFound
from agent_tui.client import control_plane_logs as logs_module
from agent_tui.client.control_plane_logs import LogQuery
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import revision_reaches
from tests.support.fake_api import good_answer
from tests.support.odd_server import Answer, OddServer, Request

TENANT = str(uuid.uuid4())
"""The workspace the deployment is made in, and the client reads it with."""


@pytest.fixture(scope="module")
def failed_build() -> Iterator[tuple[LocalControlPlane, str, str, list[str]]]:
    """A local control plane, a deployment whose build failed, its revision, its lines."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder, LocalControlPlane(Path(folder)) as plane:
        with httpx.Client(
            base_url=plane.url,
            headers={"X-Api-Key": plane.api_key, "X-Tenant-Id": TENANT},
            trust_env=False,
        ) as http:
            created = http.post(
                "/v2/deployments",
                json={
                    "name": f"logs-{uuid.uuid4().hex[:8]}",
                    "source": "internal_source",
                    "source_config": {},
                    "source_revision_config": {"langgraph_config_path": "/nonexistent/x.json"},
                    "secrets": [],
                },
            ).json()
            did, rid = created["id"], created["latest_revision_id"]
            revision_reaches(http, did, rid, "BUILD_FAILED", 60)
            lines = http.get(f"/v2/deployments/{did}/revisions/{rid}/logs").json()["lines"]
        yield plane, did, rid, lines


def client_for(plane: LocalControlPlane) -> ControlPlaneClient:
    return ControlPlaneClient(f"{plane.url}/api-host", api_key=plane.api_key, tenant_id=TENANT)


async def test_build_logs_are_read_page_by_page_with_next_offset(
    failed_build: tuple[LocalControlPlane, str, str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plane, did, rid, lines = failed_build
    assert len(lines) >= 3
    monkeypatch.setattr(logs_module, "MAX_LOG_PAGE", 1)  # one line a page: paging shows
    async with client_for(plane) as client:
        read = [e.message async for e in client.logs.follow("build", did, rid, forever=False)]
        assert read == lines
        log = await client.logs.revision_log(did, rid)
    assert (log.status, log.lines) == ("BUILD_FAILED", lines)


async def test_build_logs_filter_by_level_and_query_newest_first(
    failed_build: tuple[LocalControlPlane, str, str, list[str]],
) -> None:
    plane, did, rid, lines = failed_build
    async with client_for(plane) as client:
        errors = await client.logs.page("build", did, rid, LogQuery(level="error"))
        found = await client.logs.page("build", did, rid, LogQuery(query="BUILD FAILED"))
        newest = await client.logs.page("build", did, rid, LogQuery(limit=2))
        nothing = await client.logs.page("deploy", did, None, LogQuery())
        with pytest.raises(NotFound):
            await client.logs.page("deploy", str(uuid.uuid4()))
    assert errors.logs and all(e.level == "ERROR" for e in errors.logs)
    assert [e.message for e in found.logs] == [e.message for e in errors.logs]
    assert [e.message for e in newest.logs] == lines[::-1][:2]
    assert nothing.logs == []  # no agent server ever ran


async def test_tail_starts_from_the_newest_lines_even_when_they_share_one_time(
    failed_build: tuple[LocalControlPlane, str, str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A local build's lines all carry their revision's time: asking for what came after
    the newest shown one by time alone would bring the older ones back."""
    plane, did, rid, lines = failed_build
    monkeypatch.setattr(logs_module, "MAX_LOG_PAGE", 2)  # the catch-up takes several pages
    async with client_for(plane) as client:
        newest = [
            e.message
            async for e in client.logs.tail("build", did, rid, LogQuery(limit=2), forever=False)
        ]
    assert newest == lines[-2:]


def building_revision(plane: LocalControlPlane) -> tuple[str, str]:
    """A deployment of the test graphs whose first revision is building (held)."""
    from tests.support.paths import GRAPHS_CONFIG

    headers = {"X-Api-Key": plane.api_key, "X-Tenant-Id": TENANT}
    with httpx.Client(base_url=plane.url, headers=headers, trust_env=False) as http:
        created = http.post(
            "/v2/deployments",
            json={
                "name": "tail",
                "source": "internal_source",
                "source_config": {},
                "source_revision_config": {"langgraph_config_path": str(GRAPHS_CONFIG)},
                "secrets": [],
            },
        ).json()
        did, rid = created["id"], created["latest_revision_id"]
        revision_reaches(http, did, rid, "BUILDING", 60)
    return did, rid


async def test_tail_follows_a_build_from_its_newest_line_each_new_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.deployments import hold_builds

    release = hold_builds(monkeypatch)
    with LocalControlPlane(tmp_path) as plane:
        did, rid = building_revision(plane)
        read: list[str] = []
        async with client_for(plane) as client:
            follower = client.logs.tail("build", did, rid, LogQuery(limit=1), interval=0.1)
            async for entry in follower:
                read.append(entry.message)
                if len(read) == 1:
                    release.set()  # the build goes on: its next lines come later
                if entry.message.startswith("agent server ready at"):
                    break
            await follower.aclose()
    assert read[0].startswith("building ")  # the newest line when it started, alone
    assert not any(line.startswith("queued") for line in read)  # older: not shown
    assert len(read) == len(set(read)) and any("graph " in line for line in read)


async def test_a_control_plane_without_v1_logs_is_asked_its_older_logs() -> None:
    def older(request: Request) -> Answer:
        if request.path.startswith("/v1/"):
            return Answer(b'{"detail": "Not Found"}', status=404)
        if request.path.endswith("/logs"):
            body = b'{"revision_id": "r", "status": "DEPLOYED", "lines": ["built", "ready"]}'
            return Answer(body)
        return good_answer(request)

    with OddServer() as server:
        server.answer = older
        async with ControlPlaneClient(server.url, api_key="k") as client:
            log = await client.logs.revision_log(str(uuid.uuid4()), str(uuid.uuid4()))
    assert (log.status, log.lines) == ("DEPLOYED", ["built", "ready"])
