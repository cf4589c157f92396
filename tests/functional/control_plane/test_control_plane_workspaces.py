"""Each workspace (``X-Tenant-Id``) sees only the deployments made under it: another
workspace's deployment is a missing one (404) for every route — get, patch, delete, bulk
delete, its revisions, logs, redeploy, upload URL, the ``/v1`` logs — and is not listed.
A request without the header is the key holder's, as before workspaces were kept apart:
it sees them all, and what it creates is in the default workspace. `/v2` answers are
checked against the spec.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_http

OURS = str(uuid.uuid4())
THEIRS = str(uuid.uuid4())
MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-workspaces")) as plane:
        yield plane


@pytest.fixture
async def http(control_plane: LocalControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    async with checked_http(control_plane.url, control_plane.api_key) as client:
        yield client


async def create(http: httpx.AsyncClient, name: str, tenant: str | None) -> dict[str, Any]:
    headers = {"X-Tenant-Id": tenant} if tenant else {}
    created = await http.post(
        "/v2/deployments",
        headers=headers,
        json={
            "name": name,
            "source": "internal_source",
            "source_config": {},
            "source_revision_config": MISSING_CONFIG,
            "secrets": [],
        },
    )
    assert created.status_code == 201, created.text
    deployment: dict[str, Any] = created.json()
    return deployment


async def names(http: httpx.AsyncClient, tenant: str | None) -> set[str]:
    headers = {"X-Tenant-Id": tenant} if tenant else {}
    listed = await http.get("/v2/deployments", params={"limit": 100}, headers=headers)
    assert listed.status_code == 200
    return {d["name"] for d in listed.json()["resources"]}


async def test_another_workspace_neither_lists_nor_reaches_a_deployment(
    http: httpx.AsyncClient, control_plane: LocalControlPlane
) -> None:
    ours = await create(http, f"ours-{OURS[:8]}", OURS)
    assert ours["tenant_id"] == OURS
    did, rid = ours["id"], ours["latest_revision_id"]
    theirs = {"X-Tenant-Id": THEIRS}

    assert ours["name"] in await names(http, OURS)
    assert ours["name"] not in await names(http, THEIRS)
    base = f"/v2/deployments/{did}"
    tried = [
        await http.get(base, headers=theirs),
        await http.patch(base, headers=theirs, json={"secrets": []}),
        await http.get(f"{base}/revisions", headers=theirs),
        await http.get(f"{base}/revisions/{rid}", headers=theirs),
        await http.post(f"{base}/revisions/{rid}/redeploy", headers=theirs),
        await http.delete(base, headers=theirs),
        await http.delete("/v2/deployments", params={"deployment_ids": did}, headers=theirs),
    ]
    assert [answer.status_code for answer in tried] == [404] * len(tried)
    assert all(answer.json()["detail"] == f"Deployment ID {did} not found." for answer in tried)
    headers = {"X-Api-Key": control_plane.api_key, **theirs}
    async with httpx.AsyncClient(
        base_url=control_plane.url, headers=headers, trust_env=False, timeout=60
    ) as raw:  # routes beyond the spec: not checked against it
        not_in_spec = [
            await raw.get(f"{base}/revisions/{rid}/logs"),
            await raw.post(f"{base}/upload-url"),
            await raw.post(f"/v1/projects/{did}/revisions/{rid}/build_logs", json={}),
            await raw.post(f"/v1/projects/{did}/deploy_logs", json={}),
        ]
    assert [answer.status_code for answer in not_in_spec] == [404] * 4

    # Nothing changed: its own workspace still has it as it was.
    found = await http.get(base, headers={"X-Tenant-Id": OURS})
    assert found.status_code == 200
    assert found.json()["latest_revision_id"] == rid
    assert found.json()["updated_at"] == ours["updated_at"]
    deleted = await http.delete(base, headers={"X-Tenant-Id": OURS.upper()})  # any case
    assert deleted.status_code == 204


async def test_without_the_header_every_workspace_is_seen_and_the_default_one_used(
    http: httpx.AsyncClient,
) -> None:
    ours = await create(http, f"mine-{uuid.uuid4().hex[:8]}", OURS)
    default = await create(http, f"default-{uuid.uuid4().hex[:8]}", None)
    assert default["tenant_id"] not in (OURS, THEIRS)

    assert {ours["name"], default["name"]} <= await names(http, None)
    assert default["name"] in await names(http, default["tenant_id"])
    assert default["name"] not in await names(http, OURS)
    reached = await http.get(f"/v2/deployments/{ours['id']}")
    assert reached.status_code == 200


async def test_a_workspace_id_that_is_no_uuid_is_refused(http: httpx.AsyncClient) -> None:
    refused = await http.get("/v2/deployments", headers={"X-Tenant-Id": "not-a-workspace"})
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["header", "X-Tenant-Id"]
