"""`ControlPlaneClient` against scripted answers: prefixes, polling, workspace errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from agent_tui.client import ControlPlaneClient, Forbidden, RetryPolicy, RevisionWaitTimedOut

DEP = "11111111-1111-4111-8111-111111111111"
REV = "22222222-2222-4222-8222-222222222222"


def _revision(status: str) -> dict[str, object]:
    return {
        "id": REV,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "status": status,
        "source": "internal_source",
        "source_revision_config": {},
    }


def _client(handler: httpx.MockTransport, base_url: str = "https://cp.test") -> ControlPlaneClient:
    return ControlPlaneClient(
        base_url, api_key="lsv2_pt_x", http_transport=handler, retry=RetryPolicy(attempts=1)
    )


async def test_paths_keep_a_self_hosted_prefix_and_send_the_headers() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"resources": [], "offset": 0})

    async with ControlPlaneClient(
        "https://ls.example/api-host/",
        api_key="k",
        tenant_id="t",
        http_transport=httpx.MockTransport(answer),
    ) as client:
        await client.deployments.list(name_contains="x", limit=5)
    assert seen[0].url.path == "/api-host/v2/deployments"
    assert dict(seen[0].url.params) == {"name_contains": "x", "limit": "5", "offset": "0"}
    assert seen[0].headers["X-Api-Key"] == "k" and seen[0].headers["X-Tenant-Id"] == "t"


async def test_wait_for_revision_yields_each_change_and_polls_through_unknown() -> None:
    statuses: Iterator[str] = iter(
        ["QUEUED", "QUEUED", "BUILDING", "UNKNOWN", "DEPLOYING", "DEPLOYED", "DEPLOYED"]
    )

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_revision(next(statuses)))

    async with _client(httpx.MockTransport(answer)) as client:
        seen = [r.status async for r in client.wait_for_revision(DEP, REV, interval=0)]
    assert seen == ["QUEUED", "BUILDING", "UNKNOWN", "DEPLOYING", "DEPLOYED"]


async def test_wait_for_revision_times_out_naming_the_status() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_revision("BUILDING"))

    async with _client(httpx.MockTransport(answer)) as client:
        with pytest.raises(RevisionWaitTimedOut, match="still BUILDING"):
            async for _ in client.wait_for_revision(DEP, REV, interval=0.01, timeout=0.05):
                pass


async def test_a_403_asking_for_a_workspace_says_to_set_the_tenant_id() -> None:
    body = {"detail": "This API key requires workspace specification (X-Tenant-Id)."}

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, content=json.dumps(body))

    async with _client(httpx.MockTransport(answer)) as client:
        with pytest.raises(Forbidden) as error:
            await client.deployments.get(DEP)
    assert error.value.needs_workspace and "workspace (tenant) id" in str(error.value)
    assert "lsv2_pt_x" not in str(error.value)


async def test_a_deployment_body_is_the_request_model_with_only_what_was_set() -> None:
    from pydantic import ValidationError

    from agent_tui.client.models.deployment_request import DeploymentPatch

    seen: list[dict[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        deployment = {"id": DEP, "name": "app", "source": "internal_source"}
        return httpx.Response(201 if request.method == "POST" else 200, json=deployment)

    async with _client(httpx.MockTransport(answer)) as client:
        await client.deployments.create("app", source_config={"build_on_push": True})
        await client.deployments.patch(DEP, DeploymentPatch(secrets=[{"name": "A", "value": "1"}]))
        with pytest.raises(ValidationError):  # refused before it is sent
            await client.deployments.patch(DEP, source_config={"deployment_type": "huge"})
    assert seen == [
        {
            "name": "app",
            "source": "internal_source",
            "source_config": {"build_on_push": True},
            "source_revision_config": {},
            "secrets": [],
        },
        {"secrets": [{"name": "A", "value": "1"}]},
    ]
