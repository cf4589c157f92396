"""`client.store`: the agent server's long-term memory (`/store/...`).

Names follow langgraph-sdk's `client.store`. Namespaces are tuples of strings; the
server reads one from a query string only in its dotted form (`users.u1.memories`),
so `get_item` sends that (a repeated `namespace=` parameter answers `null`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter

from agent_tui.client.errors import NotFound
from agent_tui.client.models.memory import Namespace, StoreItem, dotted
from agent_tui.client.transport import Transport, compact


@cache
def _maybe_item() -> TypeAdapter[StoreItem | None]:
    return TypeAdapter(StoreItem | None)  # built when first used (start-up time)


class _Namespaces(BaseModel):
    model_config = ConfigDict(defer_build=True)
    namespaces: list[list[Any]]


class _Items(BaseModel):
    model_config = ConfigDict(defer_build=True)
    items: list[StoreItem]


class StoreClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def list_namespaces(
        self,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        *,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Namespace]:
        body = compact(
            prefix=list(prefix) if prefix else None,
            suffix=list(suffix) if suffix else None,
            max_depth=max_depth,
            limit=limit,
            offset=offset,
        )
        found = await self._http.request_as(
            _Namespaces, "POST", "/store/namespaces", json=body, idempotent=True
        )
        return [tuple(str(part) for part in ns) for ns in found.namespaces]

    async def search_items(
        self,
        namespace_prefix: Sequence[str],
        *,
        filter: dict[str, Any] | None = None,
        query: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[StoreItem]:
        body = compact(
            namespace_prefix=list(namespace_prefix),
            filter=filter,
            query=query,
            limit=limit,
            offset=offset,
        )
        found = await self._http.request_as(
            _Items, "POST", "/store/items/search", json=body, idempotent=True
        )
        return found.items

    async def get_item(self, namespace: Sequence[str], key: str) -> StoreItem:
        """The item, or `NotFound` (the server answers 200 `null` for a missing one)."""
        item = await self._http.request_as(
            _maybe_item(),
            "GET",
            "/store/items",
            params={"namespace": dotted(list(namespace)), "key": key},
        )
        if item is None:
            raise NotFound(
                f"no item {key!r} in namespace {dotted(list(namespace)) or '(root)'}",
                method="GET",
                url=self._http.url_for("/store/items"),
            )
        return item

    async def put_item(
        self,
        namespace: Sequence[str],
        key: str,
        value: dict[str, Any],
        *,
        index: bool | list[str] | None = None,
        ttl: float | None = None,
    ) -> None:
        body = compact(namespace=list(namespace), key=key, value=value, index=index, ttl=ttl)
        await self._http.request("PUT", "/store/items", json=body)

    async def delete_item(self, namespace: Sequence[str], key: str) -> None:
        await self._http.request(
            "DELETE", "/store/items", json={"namespace": list(namespace), "key": key}
        )
