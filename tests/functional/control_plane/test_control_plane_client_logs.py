"""agent-tui's control plane client reads logs as LangSmith serves them (issue 23): the
`/v1` build and deploy logs with their filters, paged with `next_offset`, through a
base URL with a path prefix (a self-hosted LangSmith's `/api-host`) and a workspace id.
A control plane without the `/v1` logs (a 404 there) is asked its older `…/logs`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from agent_tui.client import ControlPlaneClient, NotFound
from agent_tui.client import control_plane_logs as logs_module
from agent_tui.client.control_plane_logs import LogQuery
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import revision_reaches
from tests.support.fake_api import good_answer
from tests.support.odd_server import Answer, OddServer, Request


@pytest.fixture(scope="module")
def failed_build() -> Iterator[tuple[LocalControlPlane, str, str, list[str]]]:
    """A local control plane, a deployment whose build failed, its revision, its lines."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder, LocalControlPlane(Path(folder)) as plane:
        with httpx.Client(
            base_url=plane.url, headers={"X-Api-Key": plane.api_key}, trust_env=False
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
    return ControlPlaneClient(
        f"{plane.url}/api-host", api_key=plane.api_key, tenant_id=str(uuid.uuid4())
    )


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
