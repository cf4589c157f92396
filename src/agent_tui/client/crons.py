"""`client.crons`: runs on a schedule (`/runs/crons`), named like langgraph-sdk's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from agent_tui.client.models.memory import Cron
from agent_tui.client.transport import Transport, compact

_CRONS = TypeAdapter(list[Cron])


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
        return Cron.model_validate(await self._http.request_json("POST", "/runs/crons", json=body))

    async def create_for_thread(
        self, thread_id: str, assistant_id: str, schedule: str, **options: Any
    ) -> Cron:
        """A cron whose runs all go to one thread."""
        body = _cron_body(assistant_id, schedule, **options)
        data = await self._http.request_json("POST", f"/threads/{thread_id}/runs/crons", json=body)
        return Cron.model_validate(data)

    async def get(self, cron_id: str) -> Cron:
        return Cron.model_validate(await self._http.request_json("GET", f"/runs/crons/{cron_id}"))

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
        data = await self._http.request_json(
            "POST", "/runs/crons/search", json=body, idempotent=True
        )
        return _CRONS.validate_python(data or [])

    async def count(self, *, assistant_id: str | None = None, thread_id: str | None = None) -> int:
        body = compact(assistant_id=assistant_id, thread_id=thread_id)
        data = await self._http.request_json(
            "POST", "/runs/crons/count", json=body, idempotent=True
        )
        return int(data or 0)

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
        data = await self._http.request_json("PATCH", f"/runs/crons/{cron_id}", json=body)
        return Cron.model_validate(data)

    async def delete(self, cron_id: str) -> None:
        await self._http.request("DELETE", f"/runs/crons/{cron_id}")
