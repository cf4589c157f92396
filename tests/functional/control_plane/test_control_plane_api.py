"""The local control plane's API through `ControlPlaneClient`, every answer checked
against the spec: status codes, envelopes, paging, filters, errors, auth, providers.

Deployments here point at configs that fail to build (fast); real deploys are in
`test_control_plane_deploy.py`.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.client import (
    BadRequest,
    ControlPlaneClient,
    Forbidden,
    NotFound,
    Unauthorized,
    ValidationFailed,
)
from agent_tui.local.control_plane import LocalControlPlane, build_children, deployer
from tests.support.control_plane import checked_client, validate

MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-api")) as plane:
        yield plane


@pytest.fixture
async def client(control_plane: LocalControlPlane) -> AsyncIterator[ControlPlaneClient]:
    async with checked_client(control_plane.url, api_key=control_plane.api_key) as c:
        yield c


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_create_returns_201_with_the_first_revision_as_latest(
    client: ControlPlaneClient,
) -> None:
    name = unique("create")
    response = await client.transport.request(
        "POST",
        "/v2/deployments",
        json={
            "name": name,
            "source": "internal_source",
            "source_config": {"deployment_type": "dev"},
            "source_revision_config": MISSING_CONFIG,
            "secrets": [{"name": "TOKEN", "value": "s3cret"}],
        },
    )
    assert response.status_code == 201
    created = response.json()
    assert created["name"] == name
    assert created["active_revision_id"] is None
    fetched = await client.deployments.get(created["id"])
    assert fetched.latest_revision_id == created["latest_revision_id"]
    revisions = await client.revisions.list(created["id"])
    assert [r.id for r in revisions.resources] == [created["latest_revision_id"]]


async def test_list_pages_and_filters(client: ControlPlaneClient) -> None:
    tag = unique("page")
    for i in range(5):
        await client.deployments.create(
            f"{tag}-{i}",
            source_config={"deployment_type": "prod" if i == 0 else "dev"},
            source_revision_config=MISSING_CONFIG,
        )
    first = await client.deployments.list(name_contains=tag, limit=2)
    second = await client.deployments.list(name_contains=tag, limit=2, offset=2)
    assert len(first.resources) == 2 and second.offset == 2
    assert {d.id for d in first.resources}.isdisjoint(d.id for d in second.resources)
    everything = [d async for d in client.deployments.iter_all(name_contains=tag, page_size=2)]
    assert len(everything) == 5
    prod = await client.deployments.list(name_contains=tag, deployment_type="prod")
    assert [d.name for d in prod.resources] == [f"{tag}-0"]
    assert (await client.deployments.list(name_contains=tag, status="READY")).resources == []
    with pytest.raises(ValidationFailed) as error:
        await client.deployments.list(limit=101)
    assert error.value.errors[0].loc == ("query", "limit")


async def test_patch_makes_a_new_revision_only_for_config_or_secrets(
    client: ControlPlaneClient,
) -> None:
    created = await client.deployments.create(
        unique("patch"), source_revision_config=MISSING_CONFIG
    )
    same = await client.deployments.patch(created.id, source_config={"build_on_push": True})
    assert same.latest_revision_id == created.latest_revision_id
    assert same.source_config.build_on_push is True
    changed = await client.deployments.patch(created.id, secrets=[{"name": "A", "value": "1"}])
    assert changed.latest_revision_id != created.latest_revision_id
    assert [s.name for s in changed.secrets] == ["A"]
    revisions = await client.revisions.list(created.id)
    assert [r.id for r in revisions.resources] == [
        changed.latest_revision_id,
        created.latest_revision_id,
    ]  # newest first


async def test_delete_answers_204_then_404_with_the_spec_text(client: ControlPlaneClient) -> None:
    created = await client.deployments.create(unique("del"), source_revision_config=MISSING_CONFIG)
    response = await client.transport.request("DELETE", f"/v2/deployments/{created.id}")
    assert response.status_code == 204 and response.content == b""
    with pytest.raises(NotFound) as error:
        await client.deployments.get(created.id)
    assert error.value.detail == f"Deployment ID {created.id} not found."


async def test_malformed_bodies_and_ids_get_422_field_by_field(
    client: ControlPlaneClient,
) -> None:
    with pytest.raises(ValidationFailed) as error:
        await client.transport.request(
            "POST", "/v2/deployments", json={"name": 3, "source": "internal_source"}
        )
    where = {e.loc for e in error.value.errors}
    assert ("body", "name") in where and ("body", "secrets") in where
    with pytest.raises(ValidationFailed) as error:
        await client.deployments.get("not-a-uuid")
    assert error.value.errors[0].loc == ("path", "deployment_id")


async def test_unsupported_sources_get_400_naming_what_works(client: ControlPlaneClient) -> None:
    with pytest.raises(BadRequest) as error:
        await client.deployments.create(
            unique("gh"), source="github", source_revision_config={"repo_ref": "main"}
        )
    assert "internal_source" in str(error.value)


async def test_auth_missing_wrong_and_bearer(control_plane: LocalControlPlane) -> None:
    async with checked_client(control_plane.url) as anonymous:
        with pytest.raises(Unauthorized) as missing:
            await anonymous.deployments.list()
        assert missing.value.status_code == 401 and "X-Api-Key" in str(missing.value)
    async with checked_client(control_plane.url, api_key="wrong") as wrong:
        with pytest.raises(Forbidden) as forbidden:
            await wrong.deployments.list()
        assert "X-Api-Key" in str(forbidden.value)
    async with checked_client(control_plane.url, bearer_token=control_plane.api_key) as bearer:
        assert (await bearer.deployments.list(limit=1)).offset == 0


def test_the_generated_key_is_stored_private(control_plane: LocalControlPlane) -> None:
    key_file = Path(control_plane.data_dir) / "api-key"
    assert key_file.read_text().strip() == control_plane.api_key
    assert key_file.stat().st_mode & 0o777 == 0o600
    for state in Path(control_plane.data_dir).glob("control-plane.sqlite3*"):
        assert state.stat().st_mode & 0o777 == 0o600, state  # it holds deployment secrets


async def test_auth_providers_crud_and_422(client: ControlPlaneClient) -> None:
    provider_id = unique("github")
    created = await client.auth_providers.create(
        provider_id,
        "GitHub",
        "client-1",
        "https://example.test/auth",
        "https://example.test/token",
        client_secret="hidden",
    )
    assert created.provider_id == provider_id and "client_secret" not in created.raw()
    assert provider_id in [p.provider_id for p in await client.auth_providers.list()]
    renamed = await client.auth_providers.patch(provider_id, name="GitHub (work)")
    assert (await client.auth_providers.get(provider_id)).name == renamed.name == "GitHub (work)"
    response = await client.transport.request("DELETE", f"/v2/auth/providers/{provider_id}")
    assert response.status_code == 200 and "message" in response.json()
    with pytest.raises(NotFound):
        await client.auth_providers.get(provider_id)
    with pytest.raises(ValidationFailed) as error:
        await client.auth_providers.delete("bad id!")
    assert error.value.errors[0].loc == ("path", "provider_id")
    with pytest.raises(ValidationFailed) as error:
        await client.transport.request("POST", "/v2/auth/providers", json={"name": "x"})
    assert ("body", "client_id") in {e.loc for e in error.value.errors}


def test_the_checker_rejects_a_response_that_breaks_the_spec() -> None:
    # The validator itself: a deployment without its required fields must fail.
    with pytest.raises(AssertionError):
        validate("GET", f"/v2/deployments/{uuid.uuid4()}", 200, b'{"id": "x"}')
    with pytest.raises(AssertionError):
        validate("GET", "/v2/deployments", 200, httpx.Response(200, json=[]).content)


async def test_a_superseded_pending_revision_is_skipped(
    client: ControlPlaneClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first revision's build waits until both patches are in: on a loaded machine it
    # could otherwise fail, and the middle one start building, before the newest arrives.
    release = threading.Event()
    build = build_children.build_environment

    async def held_build(*args: Any, **kwargs: Any) -> str:
        await asyncio.to_thread(release.wait, 60)
        return await build(*args, **kwargs)

    monkeypatch.setattr(deployer, "build_environment", held_build)
    try:
        created = await client.deployments.create(
            unique("skip"), source_revision_config=MISSING_CONFIG
        )
        middle = await client.deployments.patch(created.id, secrets=[{"name": "A", "value": "1"}])
        newest = await client.deployments.patch(created.id, secrets=[{"name": "A", "value": "2"}])
    finally:
        release.set()
    assert middle.latest_revision_id is not None and newest.latest_revision_id is not None
    final: dict[str, str] = {}
    for revision_id in (middle.latest_revision_id, newest.latest_revision_id):
        async for revision in client.wait_for_revision(
            created.id, revision_id, interval=0.05, timeout=30
        ):
            final[revision_id] = revision.status
    assert final[middle.latest_revision_id] == "SKIPPED"
    assert final[newest.latest_revision_id] == "BUILD_FAILED"
    skipped = await client.revisions.list(created.id, status="SKIPPED")
    assert [r.id for r in skipped.resources] == [middle.latest_revision_id]


async def test_redeploy_makes_a_new_revision_with_the_old_config(
    client: ControlPlaneClient, tmp_path: Path
) -> None:
    created = await client.deployments.create(unique("redo"), source_revision_config=MISSING_CONFIG)
    other = str(tmp_path / "langgraph.json")
    await client.deployments.patch(
        created.id, source_revision_config={"langgraph_config_path": other}
    )
    assert created.latest_revision_id is not None
    redeployed = await client.revisions.redeploy(created.id, created.latest_revision_id)
    assert redeployed.latest_revision_id not in (None, created.latest_revision_id)
    assert redeployed.source_revision_config.langgraph_config_path == "/nonexistent/langgraph.json"
    newest = await client.revisions.get(created.id, str(redeployed.latest_revision_id))
    assert newest.source_revision_config.langgraph_config_path == "/nonexistent/langgraph.json"
    with pytest.raises(NotFound):
        await client.revisions.get(created.id, str(uuid.uuid4()))
