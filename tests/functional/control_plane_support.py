"""Helpers for the control plane tests: every response checked against the spec.

`SpecCheckingTransport` sits under the `ControlPlaneClient`'s httpx client and validates
each response body against `tests/contracts/control-plane.openapi.json` (a copy of the
shared contract, so a clean clone can run the tests): the schema for the operation and
status when the spec has one, else the FastAPI error shape `{"detail": "…"}`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import httpx
from jsonschema import Draft202012Validator

SPEC_PATH = Path(__file__).resolve().parents[1] / "contracts" / "control-plane.openapi.json"
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


@cache
def spec() -> dict[str, Any]:
    return dict(json.loads(SPEC_PATH.read_text(encoding="utf-8")))


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
            return content.get("schema")
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
        self._inner = httpx.AsyncHTTPTransport()
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


def checked_client(url: str, **credentials: Any) -> Any:
    """A `ControlPlaneClient` whose every response is validated against the spec."""
    from agent_tui.client import ControlPlaneClient, RetryPolicy

    return ControlPlaneClient(
        url,
        http_transport=SpecCheckingTransport(),
        retry=RetryPolicy(attempts=1),
        **credentials,
    )
