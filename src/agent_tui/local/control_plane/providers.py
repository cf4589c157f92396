"""`/v2/auth/providers`: OAuth provider records (stored only; no OAuth flow runs locally)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_tui.local.control_plane.deployments import HttpError
from agent_tui.local.control_plane.store import Store, now
from agent_tui.local.control_plane.validation import (
    InvalidRequest,
    ProviderCreate,
    ProviderUpdate,
    parse_body,
    read_body,
)

_PROVIDER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_SECRET = "_client_secret"  # stored, never returned (OAuthProviderResponse has no secret)


def _check_id(provider_id: str, loc: list[str | int]) -> str:
    if not _PROVIDER_ID.match(provider_id):
        raise InvalidRequest(
            [
                {
                    "loc": loc,
                    "msg": "String should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$'",
                    "type": "string_pattern_mismatch",
                }
            ]
        )
    return provider_id


def _public(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in doc.items() if key != _SECRET}


class ProviderRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _provider(self, request: Request) -> dict[str, Any]:
        provider_id = _check_id(request.path_params["provider_id"], ["path", "provider_id"])
        doc = self.store.provider(provider_id)
        if doc is None:
            raise HttpError(404, f"OAuth provider {provider_id} not found.")
        return doc

    async def index(self, request: Request) -> Response:
        return JSONResponse([_public(doc) for doc in self.store.providers()])

    async def create(self, request: Request) -> Response:
        body = parse_body(ProviderCreate, await read_body(request))
        _check_id(body.provider_id, ["body", "provider_id"])
        if self.store.provider(body.provider_id) is not None:
            raise HttpError(409, f"OAuth provider {body.provider_id} already exists.")
        stamp = now()
        doc = {
            "id": str(uuid.uuid4()),
            "organization_id": self.store.tenant_id(),
            **body.model_dump(exclude={"client_secret"}),
            "mcp_server_url": None,
            "is_dynamic_client": False,
            "created_at": stamp,
            "updated_at": stamp,
            _SECRET: body.client_secret,
        }
        self.store.put_provider(doc)
        return JSONResponse(_public(doc))

    async def get(self, request: Request) -> Response:
        return JSONResponse(_public(self._provider(request)))

    async def patch(self, request: Request) -> Response:
        _check_id(request.path_params["provider_id"], ["path", "provider_id"])
        body = parse_body(ProviderUpdate, await read_body(request))
        doc = self._provider(request)  # after the body: no await between read and write
        changes = body.model_dump(exclude_none=True)
        if "client_secret" in changes:
            doc[_SECRET] = changes.pop("client_secret")
        doc.update(changes, updated_at=now())
        self.store.put_provider(doc)
        return JSONResponse(_public(doc))

    async def delete(self, request: Request) -> Response:
        doc = self._provider(request)
        self.store.delete_provider(doc["provider_id"])
        return JSONResponse({"message": f"OAuth provider {doc['provider_id']} deleted."})
