"""The query parameters of the local control plane's list and bulk routes, checked as
the spec types them (a 422 in its shape otherwise)."""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request

from agent_tui.local.control_plane.validation import InvalidRequest, query_int

MAX_BULK_DELETE = 100
"""The most ``deployment_ids`` one bulk DELETE takes (the spec's ``maxItems``)."""


def bulk_ids(request: Request) -> list[str]:
    """``deployment_ids`` of a bulk DELETE: repeated query parameters, each a UUID."""
    raw = request.query_params.getlist("deployment_ids")
    if not raw:
        raise InvalidRequest(
            [{"loc": ["query", "deployment_ids"], "msg": "Field required", "type": "missing"}]
        )
    if len(raw) > MAX_BULK_DELETE:
        raise InvalidRequest(
            [
                {
                    "loc": ["query", "deployment_ids"],
                    "msg": f"List should have at most {MAX_BULK_DELETE} items after "
                    f"validation, not {len(raw)}",
                    "type": "too_long",
                }
            ]
        )
    errors: list[dict[str, Any]] = []
    ids: list[str] = []
    for index, value in enumerate(raw):
        try:
            ids.append(str(uuid.UUID(value)))
        except ValueError:
            errors.append(
                {
                    "loc": ["query", "deployment_ids", index],
                    "msg": "Input should be a valid UUID, invalid character or length",
                    "type": "uuid_parsing",
                }
            )
    if errors:
        raise InvalidRequest(errors)
    return list(dict.fromkeys(ids))


def page(request: Request) -> tuple[int, int]:
    limit = query_int(request.query_params, "limit", 20, low=1, high=100)
    offset = query_int(request.query_params, "offset", 0, low=0)
    return limit, offset
