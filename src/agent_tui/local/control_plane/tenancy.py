"""Workspaces: each ``X-Tenant-Id`` sees only the deployments made under it.

The official CLI (``LANGSMITH_TENANT_ID``) and agent-tui (a context's workspace,
``--tenant-id``) send the workspace as an ``X-Tenant-Id`` header (any case). A
deployment is created in the request's workspace: its ``tenant_id`` is the header's
UUID, or, without the header, the control plane's default workspace (a UUID made on its
first start, `Store.tenant_id`).

A request WITH the header lists, reads, changes, deletes and reads the revisions and
logs of that workspace's deployments only: another workspace's deployment is answered
as a missing one (404), never as forbidden. A request WITHOUT the header acts as the
holder of the control plane key did before workspaces were kept apart: it sees every
workspace's deployments (the official CLI and agent-tui deploy with a workspace, then
list, follow logs and delete without one). A header that is not a UUID is refused (422):
a ``tenant_id`` is a UUID in the spec.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from agent_tui.local.control_plane.validation import InvalidRequest

HEADER = "x-tenant-id"


def request_tenant(request: Request) -> str | None:
    """The workspace a request names (a UUID, lower case), or None without the header."""
    raw = request.headers.get(HEADER, "").strip()
    if not raw:
        return None
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise InvalidRequest(
            [
                {
                    "loc": ["header", "X-Tenant-Id"],
                    "msg": "X-Tenant-Id should be a workspace id (a UUID)",
                    "type": "uuid_parsing",
                }
            ]
        ) from None


def visible(deployment: Mapping[str, Any], tenant: str | None) -> bool:
    """Whether a request of workspace ``tenant`` (None: no header) sees ``deployment``."""
    return tenant is None or deployment.get("tenant_id") == tenant
