"""`client.assistants`: versioned configurations of a graph."""

from __future__ import annotations

from typing import Any, TypeVar

from agent_tui.client.errors import NotFound
from agent_tui.client.models import (
    Assistant,
    AssistantGraph,
    AssistantSchemas,
    AssistantVersion,
)
from agent_tui.client.transport import Transport, compact
from agent_tui.client.url_path import segment
from agent_tui.text.short_ids import is_uuid

_Read = TypeVar("_Read", Assistant, AssistantGraph, AssistantSchemas)


class AssistantsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def create(
        self,
        graph_id: str,
        context: dict[str, Any] | None = None,
        name: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        description: str | None = None,
        config: dict[str, Any] | None = None,
        if_exists: str | None = None,
    ) -> Assistant:
        """`if_exists="do_nothing"`: an assistant the server already has (Aegra: one per
        graph and context) is returned instead of a 409."""
        body = compact(
            graph_id=graph_id,
            context=context if context is not None else {},
            name=name,
            metadata=metadata,
            description=description,
            config=config,
            if_exists=if_exists,
        )
        return await self._http.request_as(Assistant, "POST", "/assistants", json=body)

    async def get(self, assistant_id: str) -> Assistant:
        return await self._read(Assistant, assistant_id, "")

    async def _read(
        self,
        shape: type[_Read],
        assistant_id: str,
        tail: str,
        params: dict[str, Any] | None = None,
    ) -> _Read:
        """`GET /assistants/{assistant_id}{tail}`. Where an assistant id goes, langgraph-api
        also takes a graph name (its default assistant); a server that does not (Aegra:
        404) is asked again with the graph's default assistant, found by search."""
        able = self._http.capabilities
        if not able.graph_by_name and not is_uuid(assistant_id):
            assistant_id = await self._default_of(assistant_id) or assistant_id
        try:
            return await self._http.request_as(
                shape, "GET", f"/assistants/{segment(assistant_id)}{tail}", params=params
            )
        except NotFound:
            if is_uuid(assistant_id):
                raise
            found = await self._default_of(assistant_id)
            if found is None:
                raise
            able.graph_by_name = False
            return await self._http.request_as(
                shape, "GET", f"/assistants/{segment(found)}{tail}", params=params
            )

    async def _default_of(self, graph_id: str) -> str | None:
        """The id of graph `graph_id`'s default assistant (the one the server made),
        else of its first assistant; None when the server has no such graph."""
        made = await self.search(graph_id, metadata={"created_by": "system"}, limit=1)
        found = made or await self.search(graph_id, limit=1)
        return found[0].assistant_id if found else None

    async def search(
        self,
        graph_id: str | None = None,
        *,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        limit: int = 100,
        offset: int = 0,
        sort_by: str | None = None,
        sort_order: str | None = None,
    ) -> list[Assistant]:
        body = compact(
            graph_id=graph_id,
            metadata=metadata,
            name=name,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order,
        )
        return await self._http.request_as(
            list[Assistant], "POST", "/assistants/search", json=body, idempotent=True
        )

    async def update(
        self,
        assistant_id: str,
        context: dict[str, Any],
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
    ) -> Assistant:
        """Make a new version from exactly `context` (not merged) and activate it."""
        body = compact(
            context=context, name=name, description=description, metadata=metadata, config=config
        )
        return await self._http.request_as(
            Assistant, "PATCH", f"/assistants/{segment(assistant_id)}", json=body
        )

    async def delete(self, assistant_id: str) -> None:
        await self._http.request("DELETE", f"/assistants/{segment(assistant_id)}")

    async def get_versions(
        self,
        assistant_id: str,
        *,
        metadata: dict[str, Any] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[AssistantVersion]:
        """Every version, newest first, each with its own context."""
        body = compact(metadata=metadata, limit=limit, offset=offset)
        return await self._http.request_as(
            list[AssistantVersion],
            "POST",
            f"/assistants/{segment(assistant_id)}/versions",
            json=body,
            idempotent=True,
        )

    async def set_latest(self, assistant_id: str, version: int) -> Assistant:
        """Make `version` the active one.

        The in-memory runtime (langgraph-runtime-inmem 0.36.7) does not copy the version's
        `context` here; compare with `get_versions` to detect it (see docs/server-quirks.md).
        """
        return await self._http.request_as(
            Assistant,
            "POST",
            f"/assistants/{segment(assistant_id)}/latest",
            json={"version": version},
        )

    async def active_version(self, assistant_id: str) -> AssistantVersion:
        """The versions-list entry of the assistant's active version.

        Its `context` is the one runs should use: on the in-memory runtime the assistant
        record itself may hold a newer version's context after `set_latest`.
        """
        assistant = await self.get(assistant_id)
        offset = 0
        while True:
            versions = await self.get_versions(assistant_id, limit=100, offset=offset)
            for version in versions:
                if version.version == assistant.version:
                    return version
            if len(versions) < 100:
                break
            offset += 100
        raise NotFound(
            f"version {assistant.version} of assistant {assistant_id} is not in its versions list",
            method="POST",
            url=self._http.url_for(f"/assistants/{segment(assistant_id)}/versions"),
        )

    async def get_graph(self, assistant_id: str, *, xray: bool | int = False) -> AssistantGraph:
        params = {"xray": str(xray).lower() if isinstance(xray, bool) else xray}
        return await self._read(AssistantGraph, assistant_id, "/graph", params)

    async def get_schemas(self, assistant_id: str) -> AssistantSchemas:
        return await self._read(AssistantSchemas, assistant_id, "/schemas")
