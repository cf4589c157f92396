"""`DELETE /v2/deployments?deployment_ids=…` (bulk delete), as the spec defines it.

The spec: `deployment_ids` is a required query array of UUIDs (at most 100); 200 when
every deployment was deleted, 207 when only some were, 404 when none was found, 422 for
bad parameters. The local control plane answers ``{"deleted": [ids], "failed": [{"deployment_id",
"detail"}]}`` (the spec leaves the body open).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_http, validate

MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-bulk")) as plane:
        yield plane


@pytest.fixture
async def http(control_plane: LocalControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    async with checked_http(control_plane.url, control_plane.api_key) as client:
        yield client


async def create(http: httpx.AsyncClient) -> str:
    response = await http.post(
        "/v2/deployments",
        json={
            "name": f"bulk-{uuid.uuid4().hex[:8]}",
            "source": "internal_source",
            "source_config": {},
            "source_revision_config": MISSING_CONFIG,
            "secrets": [],
        },
    )
    assert response.status_code == 201
    return str(response.json()["id"])


async def exists(http: httpx.AsyncClient, deployment_id: str) -> bool:
    return (await http.get(f"/v2/deployments/{deployment_id}")).status_code == 200


async def test_bulk_delete_removes_every_named_deployment(http: httpx.AsyncClient) -> None:
    first, second, kept = [await create(http) for _ in range(3)]
    response = await http.delete(
        "/v2/deployments", params=[("deployment_ids", first), ("deployment_ids", second)]
    )
    assert response.status_code == 200
    assert response.json() == {"deleted": [first, second], "failed": []}
    assert not await exists(http, first) and not await exists(http, second)
    assert await exists(http, kept)
    listed = (await http.get("/v2/deployments", params={"limit": 100})).json()["resources"]
    assert {first, second}.isdisjoint(d["id"] for d in listed)


async def test_bulk_delete_with_unknown_ids_is_a_partial_success(
    control_plane: LocalControlPlane, http: httpx.AsyncClient
) -> None:
    found, unknown = await create(http), str(uuid.uuid4())
    # 207 is in the operation's description, not its responses: checked as its 200.
    async with httpx.AsyncClient(base_url=control_plane.url, trust_env=False, timeout=60) as raw:
        response = await raw.delete(
            "/v2/deployments",
            params=[("deployment_ids", found), ("deployment_ids", unknown)],
            headers={"X-Api-Key": control_plane.api_key},
        )
    assert response.status_code == 207
    validate("DELETE", "/v2/deployments", 200, response.content)
    assert response.json() == {
        "deleted": [found],
        "failed": [{"deployment_id": unknown, "detail": f"Deployment ID {unknown} not found."}],
    }
    assert not await exists(http, found)

    response = await http.delete("/v2/deployments", params={"deployment_ids": unknown})
    assert response.status_code == 404
    assert response.json() == {"detail": f"Deployment ID {unknown} not found."}


async def test_bulk_delete_checks_its_parameters(http: httpx.AsyncClient) -> None:
    kept = await create(http)
    missing = await http.delete("/v2/deployments")
    assert missing.status_code == 422
    assert missing.json()["detail"][0]["loc"] == ["query", "deployment_ids"]

    bad = await http.delete(
        "/v2/deployments", params=[("deployment_ids", kept), ("deployment_ids", "nope")]
    )
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["query", "deployment_ids", 1]

    too_many: list[tuple[str, Any]] = [("deployment_ids", kept)] + [
        ("deployment_ids", str(uuid.uuid4()))
    ] * 100
    response = await http.delete("/v2/deployments", params=too_many)
    assert response.status_code == 422 and "at most 100" in response.text
    assert await exists(http, kept), "a refused bulk delete deleted something"
