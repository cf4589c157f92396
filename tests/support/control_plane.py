"""Helpers for the control plane tests: every response checked against the spec.

`SpecCheckingTransport` sits under the `ControlPlaneClient`'s httpx client and validates
each response body against `tests/contracts/control-plane.openapi.json` (a copy of the
shared contract, so a clean clone can run the tests): the schema for the operation and
status when the spec has one, else the FastAPI error shape `{"detail": "…"}`.

Also what the deploy tests share: the order of a revision's statuses, a graph that does
nothing, a project whose server cannot start, and creating a deployment then following
its first revision to the end.
"""

from __future__ import annotations

import json
import re
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from jsonschema import Draft202012Validator

from agent_tui.client.tls import loopback_tls_context
from tests.support.paths import CONTROL_PLANE_SPEC

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.client.models.control_plane import Deployment

DETAIL_SCHEMA = {
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string"}},
}
# Documented extension of the local control plane (not in the public spec).
LOGS_SCHEMA = {
    "type": "object",
    "required": ["revision_id", "status", "lines"],
    "properties": {"lines": {"type": "array", "items": {"type": "string"}}},
}
# A successful revision passes through these statuses in this order.
REVISION_ORDER = [
    "QUEUED",
    "AWAITING_BUILD",
    "BUILDING",
    "AWAITING_DEPLOY",
    "DEPLOYING",
    "DEPLOYED",
]
NOOP_GRAPH = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    x: int


builder = StateGraph(State)
builder.add_node("noop", lambda state: {"x": 1})
builder.add_edge(START, "noop")
builder.add_edge("noop", END)
graph = builder.compile()
"""


@cache
def spec() -> dict[str, Any]:
    return dict(json.loads(CONTROL_PLANE_SPEC.read_text(encoding="utf-8")))


@cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    templates = sorted(spec()["paths"], key=lambda t: t.count("{"))  # literal paths first
    return [(re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", t) + "$"), t) for t in templates]


def response_schema(method: str, path: str, status: int) -> dict[str, Any] | None:
    """The spec's schema for this answer; None when the spec gives no schema for it."""
    for pattern, template in _routes():
        operation = spec()["paths"][template].get(method.lower())
        if pattern.match(path) and operation is not None:
            response = operation["responses"].get(str(status))
            if response is None:
                return None
            content = response.get("content", {}).get("application/json", {})
            schema: dict[str, Any] | None = content.get("schema")
            return schema
    raise AssertionError(f"{method} {path} is not an operation of the spec")


def validate(method: str, path: str, status: int, body: bytes) -> None:
    if status == 204:
        assert body == b"", f"{method} {path}: 204 must have no body"
        return
    data = json.loads(body)
    if path.endswith("/logs") and status == 200:
        schema: dict[str, Any] | None = LOGS_SCHEMA
    else:
        schema = response_schema(method, path, status)
    if schema is None:
        assert status >= 400, f"{method} {path}: {status} is not in the spec"
        schema = DETAIL_SCHEMA
    checker = Draft202012Validator(
        {**schema, "components": spec()["components"]},
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )
    errors = sorted(checker.iter_errors(data), key=str)
    assert not errors, f"{method} {path} {status}: {errors[0].message} in {data!r}"


class SpecCheckingTransport(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=loopback_tls_context())
        self.checked = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        validate(request.method, request.url.path, response.status_code, body)
        self.checked += 1
        headers = [(k, v) for k, v in response.headers.items() if k != "content-encoding"]
        return httpx.Response(response.status_code, headers=headers, content=body, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def revision_reaches(
    http: httpx.Client, deployment_id: str, revision_id: str, wanted: str, timeout: float
) -> None:
    """Poll the revision until its status is `wanted`; fails at once on another failure
    status, or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}"
    while (status := http.get(path).json()["status"]) != wanted:
        assert not status.endswith("FAILED"), f"the revision ended {status}, not {wanted}"
        assert time.monotonic() < deadline, f"the revision is still {status}, not {wanted}"
        time.sleep(0.2)


def checked_http(url: str, api_key: str) -> httpx.AsyncClient:
    """Raw requests to a control plane with its key, every answer validated against the
    spec (`async with checked_http(plane.url, plane.api_key) as http:`)."""
    return httpx.AsyncClient(
        base_url=url,
        transport=SpecCheckingTransport(),
        headers={"X-Api-Key": api_key},
        trust_env=False,
        timeout=60,
        verify=loopback_tls_context(),
    )


def checked_client(url: str, **credentials: Any) -> Any:
    """A `ControlPlaneClient` whose every response is validated against the spec."""
    from agent_tui.client import ControlPlaneClient, RetryPolicy

    return ControlPlaneClient(
        url,
        http_transport=SpecCheckingTransport(),
        retry=RetryPolicy(attempts=1),
        **credentials,
    )


def no_start_project(folder: Path) -> Path:
    """A project whose graphs import (the build passes) but whose server cannot start:
    the auth handler it loads is missing. Its ``langgraph.json``."""
    (folder / "graph.py").write_text(NOOP_GRAPH)
    config = folder / "langgraph.json"
    config.write_text(
        json.dumps({"graphs": {"agent": "./graph.py:graph"}, "auth": {"path": "./no_auth.py:auth"}})
    )
    return config


async def follow(
    client: ControlPlaneClient,
    deployment_id: str,
    revision_id: str | None,
    *,
    interval: float,
    timeout: float,
) -> list[str]:
    """The statuses a revision goes through, until a terminal one (the last)."""
    assert revision_id is not None
    return [
        revision.status
        async for revision in client.wait_for_revision(
            deployment_id, revision_id, interval=interval, timeout=timeout
        )
    ]


async def create_and_follow(
    client: ControlPlaneClient, name: str, config: Path, *, interval: float, timeout: float
) -> tuple[Deployment, list[str]]:
    """A new deployment of ``config`` and the statuses its first revision went through."""
    created = await client.deployments.create(
        name, source_revision_config={"langgraph_config_path": str(config)}
    )
    statuses = await follow(
        client, created.id, created.latest_revision_id, interval=interval, timeout=timeout
    )
    return created, statuses


def answers(url: str | None) -> bool:
    """Whether an agent server answers at ``url``."""
    if url is None:
        return False
    try:
        return (
            httpx.get(
                f"{url}/ok", timeout=2, trust_env=False, verify=loopback_tls_context()
            ).status_code
            == 200
        )
    except httpx.TransportError:
        return False


def store_name(data_dir: Path, deployment_id: str, name: str) -> None:
    """Give a stopped local control plane's deployment ``name`` in its store, as a hosted
    control plane (or an older version of agent-tui's) could hold it: the API refuses
    names with control characters."""
    import sqlite3

    db = sqlite3.connect(data_dir / "control-plane.sqlite3")
    try:
        (text,) = db.execute(
            "SELECT doc FROM deployments WHERE id = ?", (deployment_id,)
        ).fetchone()
        doc = json.loads(text)
        doc["name"] = name
        db.execute("UPDATE deployments SET doc = ? WHERE id = ?", (json.dumps(doc), deployment_id))
        db.commit()
    finally:
        db.close()
