"""`client.runs`: streamed runs over server-sent events, cancel, rejoin."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from pydantic import TypeAdapter

from agent_tui.client.events import MetadataEvent, RunEvent, parse_run_event
from agent_tui.client.models import Run
from agent_tui.client.sse import aiter_sse
from agent_tui.client.transport import Transport, compact

_RUNS = TypeAdapter(list[Run])

DEFAULT_STREAM_MODE: tuple[str, ...] = ("updates", "messages-tuple")


class RunStream:
    """One streamed run: iterate it for typed events.

    Use it as `async with client.runs.stream(...) as run: async for event in run`, so the
    connection closes even when the loop stops early. `run_id` is known from the
    `Content-Location` header (before any event) or the first `metadata` event, and
    `last_event_id` is what a rejoin after a dropped connection needs; `ended` turns true
    once the server has finished the stream.
    """

    def __init__(
        self,
        transport: Transport,
        method: str,
        path: str,
        *,
        json: Any = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
    ) -> None:
        self._http = transport
        self._method = method
        self._path = path
        self._json = json
        self._headers = headers
        self._params = params
        self.thread_id = thread_id
        self.run_id = run_id
        self.last_event_id: str | None = None
        self.ended = False
        self._iterator: AsyncIterator[RunEvent] | None = None

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._iterator is not None and hasattr(self._iterator, "aclose"):
            await self._iterator.aclose()

    def __aiter__(self) -> AsyncIterator[RunEvent]:
        if self._iterator is None:
            self._iterator = self._events()
        return self._iterator

    def _note_run_id(self, response: httpx.Response) -> None:
        # Content-Location: /threads/{thread_id}/runs/{run_id}, sent before the body.
        location = response.headers.get("content-location", "")
        parts = location.rstrip("/").split("/")
        if len(parts) >= 2 and parts[-2] == "runs":
            self.run_id = parts[-1]

    async def _events(self) -> AsyncIterator[RunEvent]:
        async with self._http.stream(
            self._method, self._path, json=self._json, headers=self._headers, params=self._params
        ) as response:
            self._note_run_id(response)
            try:
                async for sse in aiter_sse(response.aiter_bytes()):
                    event = parse_run_event(sse)
                    if sse.id is not None:
                        self.last_event_id = sse.id
                    if isinstance(event, MetadataEvent) and event.run_id and not self.run_id:
                        self.run_id = event.run_id
                    yield event
            except httpx.HTTPError as exc:
                raise self._http.network_error(self._method, self._path, exc) from exc
            # The server ends a run's stream with `event: end` or by closing it; either way
            # the body finished cleanly (a dropped connection raises above instead).
            self.ended = True


class RunsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def stream(
        self,
        thread_id: str | None,
        assistant_id: str,
        *,
        input: Any = None,
        command: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        stream_mode: str | Sequence[str] = DEFAULT_STREAM_MODE,
        stream_subgraphs: bool = False,
        stream_resumable: bool = False,
        checkpoint_id: str | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
        multitask_strategy: str | None = None,
        on_disconnect: str | None = None,
        if_not_exists: str | None = None,
    ) -> RunStream:
        """Start a run and stream it. `assistant_id` is an assistant id or a graph name.

        The POST creates a run, so it is never re-sent: after a dropped connection use
        `join_stream` with the run's id and `last_event_id` instead.
        """
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        body = compact(
            assistant_id=assistant_id,
            input=input,
            command=command,
            context=context,
            config=config,
            metadata=metadata,
            stream_mode=modes,
            stream_subgraphs=stream_subgraphs or None,
            stream_resumable=stream_resumable or None,
            checkpoint={"checkpoint_id": checkpoint_id} if checkpoint_id else None,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            multitask_strategy=multitask_strategy,
            on_disconnect=on_disconnect,
            if_not_exists=if_not_exists,
        )
        path = f"/threads/{thread_id}/runs/stream" if thread_id else "/runs/stream"
        return RunStream(self._http, "POST", path, json=body, thread_id=thread_id)

    def join_stream(
        self,
        thread_id: str,
        run_id: str,
        *,
        last_event_id: str | None = None,
        stream_mode: str | Sequence[str] | None = None,
    ) -> RunStream:
        """Rejoin a run's stream; with `last_event_id` (from a resumable run) replay after it.

        `"-1"` replays every event. Without resumability only later output arrives.
        """
        headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else None
        params: dict[str, Any] | None = None
        if stream_mode is not None:
            params = {
                "stream_mode": [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
            }
        return RunStream(
            self._http,
            "GET",
            f"/threads/{thread_id}/runs/{run_id}/stream",
            headers=headers,
            params=params,
            thread_id=thread_id,
            run_id=run_id,
        )

    async def cancel(
        self, thread_id: str, run_id: str, *, wait: bool = False, action: str = "interrupt"
    ) -> None:
        """Cancel a run on the server (`action`: `interrupt` keeps the thread, `rollback` undoes)."""
        params = {"wait": str(wait).lower(), "action": action}
        await self._http.request(
            "POST", f"/threads/{thread_id}/runs/{run_id}/cancel", params=params, idempotent=True
        )

    async def list(
        self, thread_id: str, *, limit: int = 10, offset: int = 0, status: str | None = None
    ) -> list[Run]:
        params = compact(limit=limit, offset=offset, status=status)
        data = await self._http.request_json("GET", f"/threads/{thread_id}/runs", params=params)
        return _RUNS.validate_python(data)

    async def get(self, thread_id: str, run_id: str) -> Run:
        data = await self._http.request_json("GET", f"/threads/{thread_id}/runs/{run_id}")
        return Run.model_validate(data)

    async def join(self, thread_id: str, run_id: str) -> Any:
        """Wait for a run to finish and return the thread's final values."""
        return await self._http.request_json(
            "GET", f"/threads/{thread_id}/runs/{run_id}/join", timeout=300.0
        )
