"""`client.crons`: runs on a schedule (`/runs/crons`), named like langgraph-sdk's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent_tui.client.capabilities import NotOffered, no_route
from agent_tui.client.errors import ApiError, NotFound
from agent_tui.client.models.memory import Cron
from agent_tui.client.transport import Transport, compact
from agent_tui.client.url_path import segment

PAGE = 100  # crons a search page holds when looking one up without `GET /runs/crons/{id}`


def _same_input(cron: Cron, sent: Any) -> bool:
    payload = getattr(cron, "payload", None)
    if isinstance(payload, dict) and "input" in payload:
        return bool(payload.get("input") == sent)
    return True  # the server does not say: the schedule alone decides


def _cron_body(
    assistant_id: str,
    schedule: str,
    *,
    input: Any = None,
    metadata: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    end_time: datetime | None = None,
    timezone: str | None = None,
    interrupt_before: list[str] | str | None = None,
    interrupt_after: list[str] | str | None = None,
    on_run_completed: str | None = None,
    enabled: bool | None = None,
) -> dict[str, Any]:
    return compact(
        assistant_id=assistant_id,
        schedule=schedule,
        input=input,
        metadata=metadata,
        context=context,
        end_time=end_time.isoformat() if end_time else None,
        timezone=timezone,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        on_run_completed=on_run_completed,
        enabled=enabled,
    )


class CronsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def create(self, assistant_id: str, schedule: str, **options: Any) -> Cron:
        """A cron that starts a run on a new thread each time (stateless)."""
        body = _cron_body(assistant_id, schedule, **options)
        data = await self._http.request_json("POST", "/runs/crons", json=body)
        return await self._created(data, body, "/runs/crons", thread_id=None)

    async def create_for_thread(
        self, thread_id: str, assistant_id: str, schedule: str, **options: Any
    ) -> Cron:
        """A cron whose runs all go to one thread."""
        body = _cron_body(assistant_id, schedule, **options)
        path = f"/threads/{segment(thread_id)}/runs/crons"
        data = await self._http.request_json("POST", path, json=body)
        return await self._created(data, body, path, thread_id=thread_id)

    async def _created(
        self, data: Any, body: dict[str, Any], path: str, *, thread_id: str | None
    ) -> Cron:
        """The cron a create made. langgraph-api answers with the cron; Aegra (as older
        LangGraph servers did) answers with the run it started at once: the cron is then
        the newest of the assistant's with this schedule and input. Never re-sent (a
        retry would make a second cron)."""
        if not (isinstance(data, dict) and "run_id" in data and "cron_id" not in data):
            return self._http.validated(Cron, data, "POST", path)
        first_run = str(data["run_id"])
        assistant_id = str(data.get("assistant_id") or body["assistant_id"])
        for cron in await self.search(
            assistant_id=assistant_id,
            thread_id=thread_id,
            limit=20,
            sort_by="created_at",
            sort_order="desc",
        ):
            if cron.schedule == body["schedule"] and _same_input(cron, body.get("input")):
                return cron.model_copy(update={"first_run_id": first_run})
        raise NotOffered(
            f"the server started run {first_run} but lists no cron for it",
            method="POST",
            url=self._http.url_for("/runs/crons"),
        )

    async def get(self, cron_id: str) -> Cron:
        """One cron; a server without `GET /runs/crons/{id}` (Aegra: 405) is searched."""
        able = self._http.capabilities
        if able.cron_get:
            try:
                return await self._http.request_as(Cron, "GET", f"/runs/crons/{segment(cron_id)}")
            except ApiError as error:
                if not no_route(error) or isinstance(error, NotFound):
                    raise  # a 404 here is the cron, not the route
                able.cron_get = False
        offset = 0
        while True:
            page = await self.search(limit=PAGE, offset=offset)
            found = next((cron for cron in page if cron.cron_id == cron_id), None)
            if found is not None:
                return found
            if len(page) < PAGE:
                raise NotFound(
                    f"Cron {cron_id} not found",
                    method="GET",
                    url=self._http.url_for(f"/runs/crons/{segment(cron_id)}"),
                )
            offset += PAGE

    async def search(
        self,
        *,
        assistant_id: str | None = None,
        thread_id: str | None = None,
        enabled: bool | None = None,
        limit: int = 100,
        offset: int = 0,
        sort_by: str | None = None,
        sort_order: str | None = None,
    ) -> list[Cron]:
        body = compact(
            assistant_id=assistant_id,
            thread_id=thread_id,
            enabled=enabled,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order,
        )
        return await self._http.request_as(
            list[Cron], "POST", "/runs/crons/search", json=body, idempotent=True
        )

    async def count(self, *, assistant_id: str | None = None, thread_id: str | None = None) -> int:
        body = compact(assistant_id=assistant_id, thread_id=thread_id)
        return await self._http.request_as(
            int, "POST", "/runs/crons/count", json=body, idempotent=True
        )

    async def update(
        self,
        cron_id: str,
        *,
        schedule: str | None = None,
        end_time: datetime | None = None,
        enabled: bool | None = None,
        input: Any = None,
        metadata: dict[str, Any] | None = None,
        timezone: str | None = None,
    ) -> Cron:
        body = compact(
            schedule=schedule,
            end_time=end_time.isoformat() if end_time else None,
            enabled=enabled,
            input=input,
            metadata=metadata,
            timezone=timezone,
        )
        return await self._http.request_as(
            Cron, "PATCH", f"/runs/crons/{segment(cron_id)}", json=body
        )

    async def delete(self, cron_id: str) -> None:
        await self._http.request("DELETE", f"/runs/crons/{segment(cron_id)}")
