"""`client.runs`: streamed runs over server-sent events, cancel, rejoin."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from agent_tui.client.errors import RequestTimedOut, StreamCut
from agent_tui.client.events import MetadataEvent, RunEvent, parse_run_event
from agent_tui.client.models import Run
from agent_tui.client.sse import MAX_EVENT_BYTES, EventBounds, ServerSentEvent, SSEError, aiter_sse
from agent_tui.client.timeouts import STREAM_TIMEOUT
from agent_tui.client.transport import Transport, compact
from agent_tui.client.url_path import segment


def _listed(values: Sequence[str] | None) -> list[str] | None:
    return list(values) if values is not None else None


_T = TypeVar("_T")
# What `aconnect_sse` sends: the request goes through `Transport.stream` instead, for
# its typed errors on a failed answer.
SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}

DEFAULT_STREAM_MODE: tuple[str, ...] = ("updates", "messages-tuple")
# After `close_now()` while the run request is still unanswered: how long to wait for
# the answer's headers, which name the run (so that it can be cancelled on the server).
OPEN_GRACE = 5.0


class StreamStalled(RequestTimedOut):
    """Nothing (not even a heartbeat) arrived for `stall_timeout` seconds; the connection
    is still open but dead, or the server stopped sending without closing it."""

    title = "The run stream went silent"


class RunStream:
    """One streamed run: iterate it for typed events.

    Use it as `async with client.runs.stream(...) as run: async for event in run`, so the
    connection closes even when the loop stops early. `run_id` is known from the
    `Content-Location` header (before any event) or the first `metadata` event, and
    `last_event_id` is what a rejoin after a dropped connection needs; `ended` turns true
    once the server has finished the stream.

    `stall_timeout`: with no byte at all (the server sends `: heartbeat` comments every
    few seconds) for that long, iteration raises `StreamStalled`. `close_now()` (from any
    task) stops the iteration at once, whatever the server does: it ends quietly with
    `closed_locally` set.
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
        stall_timeout: float | None = None,
        max_event_bytes: int = MAX_EVENT_BYTES,
    ) -> None:
        self._http = transport
        self._method = method
        self._path = path
        self._json = json
        self._headers = {**SSE_HEADERS, **(headers or {})}
        self._params = params
        self.thread_id = thread_id
        self.run_id = run_id
        self.stall_timeout = stall_timeout
        self.last_event_id: str | None = None
        self.ended = False
        self.closed_locally = False
        self._bounds = EventBounds(max_event_bytes)
        self._iterator: AsyncIterator[RunEvent] | None = None
        self._deadline: asyncio.Timeout | None = None  # of the read in progress, if any
        self._opening = False

    @property
    def skipped_events(self) -> int:
        """Events dropped for being larger than `max_event_bytes`."""
        return self._bounds.skipped

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._iterator is not None and hasattr(self._iterator, "aclose"):
            await self._iterator.aclose()

    def close_now(self) -> None:
        """Stop reading: the read in progress ends at once and iteration stops quietly
        (`closed_locally`); the connection closes when the iteration ends. While the run
        request is unanswered, its answer is awaited `OPEN_GRACE` seconds more, so that
        the run it started is known (`run_id`)."""
        if self.closed_locally:
            return
        self.closed_locally = True
        deadline = self._deadline
        if deadline is not None:
            # Only the run request's answer is worth waiting for: it names a new run.
            grace = OPEN_GRACE if self._opening and self._method == "POST" else 0.0
            deadline.reschedule(asyncio.get_running_loop().time() + grace)

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

    async def _within(self, awaitable: Awaitable[_T], timeout: float | None) -> _T:
        """Await under a deadline that `close_now()` can bring forward. Raises
        `TimeoutError` when it passes (see `closed_locally` for whose doing it was)."""
        async with asyncio.timeout(timeout) as deadline:
            self._deadline = deadline
            try:
                return await awaitable
            finally:
                self._deadline = None

    async def _events(self) -> AsyncIterator[RunEvent]:
        if self.closed_locally:
            return
        method, path = self._method, self._path
        # A rejoin is idempotent: no answer within the stall timeout is a stall. The run
        # request creates the run, so its answer is awaited as long as the transport lets.
        open_timeout = self.stall_timeout if method == "GET" else None
        async with contextlib.AsyncExitStack() as stack:
            opening = stack.enter_async_context(
                self._http.stream(
                    method, path, json=self._json, headers=self._headers, params=self._params
                )
            )
            self._opening = True
            try:
                response = await self._within(opening, open_timeout)
            except TimeoutError:
                if self.closed_locally:
                    return
                raise self._stalled() from None
            finally:
                self._opening = False
            self._note_run_id(response)
            events = aiter_sse(response, bounds=self._bounds, text=self._read(response))
            try:
                async with contextlib.aclosing(events):
                    async for sse in events:
                        yield self._received(sse)
                        if self.closed_locally:
                            return
            except SSEError as exc:
                # Not an event stream (a proxy's page, say): nothing in it is a run event.
                kind = response.headers.get("content-type", "no content type")
                raise self._http.unexpected_body(
                    method, path, f"expected an event stream, got {kind}"
                ) from exc
            except httpx.TimeoutException as exc:
                raise self._http.network_error(method, path, exc) from exc
            except httpx.HTTPError as exc:
                # The server answered: this is no "cannot reach the server" (and must not
                # mark the connection offline); the driver rejoins and finds out more.
                raise self._cut(f"{type(exc).__name__}: {exc}") from exc
            if self.closed_locally:
                return
            if self._bounds.unfinished:
                # Closed cleanly, but with an event half sent: what is missing is
                # replayed by a rejoin from the last event id.
                raise self._cut("the connection closed with an event half sent")
            # The server ends a run's stream with `event: end` or by closing it; either way
            # the body finished cleanly (a dropped connection raises above instead).
            self.ended = True

    async def _read(self, response: httpx.Response) -> AsyncIterator[str]:
        """The body's text, each read under the stall deadline; stops at `close_now()`."""
        pieces = response.aiter_text().__aiter__()
        while not self.closed_locally:
            try:
                piece = await self._within(anext(pieces), self.stall_timeout)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if self.closed_locally:
                    return
                raise self._stalled() from None
            yield piece

    def _received(self, sse: ServerSentEvent) -> RunEvent:
        event = parse_run_event(sse)
        if sse.id:  # the stream's last event ID; "" until the first `id:`
            self.last_event_id = sse.id
        if isinstance(event, MetadataEvent) and event.run_id and not self.run_id:
            self.run_id = event.run_id
        return event

    def _cut(self, how: str) -> StreamCut:
        where = " mid-event" if self._bounds.unfinished else ""
        return StreamCut(
            f"the stream was cut{where}",
            method=self._method,
            url=self._http.url_for(self._path),
            detail=how,
        )

    def _stalled(self) -> StreamStalled:
        return StreamStalled(
            f"no data from {self._http.base_url} for {self.stall_timeout:g} s",
            method=self._method,
            url=self._http.url_for(self._path),
        )


@dataclass(frozen=True, slots=True)
class WaitedRun:
    run_id: str | None
    values: Any


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
        stall_timeout: float | None = None,
    ) -> RunStream:
        """Start a run and stream it. `assistant_id` is an assistant id or a graph name.

        The POST creates a run, so it is never re-sent: after a dropped connection use
        `join_stream` with the run's id and `last_event_id` instead. `stall_timeout`: see
        `RunStream`.
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
        path = f"/threads/{segment(thread_id)}/runs/stream" if thread_id else "/runs/stream"
        return RunStream(
            self._http, "POST", path, json=body, thread_id=thread_id, stall_timeout=stall_timeout
        )

    def join_stream(
        self,
        thread_id: str,
        run_id: str,
        *,
        last_event_id: str | None = None,
        stream_mode: str | Sequence[str] | None = None,
        stall_timeout: float | None = None,
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
            f"/threads/{segment(thread_id)}/runs/{segment(run_id)}/stream",
            headers=headers,
            params=params,
            thread_id=thread_id,
            run_id=run_id,
            stall_timeout=stall_timeout,
        )

    async def create(
        self,
        thread_id: str,
        assistant_id: str,
        *,
        input: Any = None,
        command: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        multitask_strategy: str | None = None,
        stream_mode: str | Sequence[str] | None = None,
        stream_subgraphs: bool | None = None,
        stream_resumable: bool | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
    ) -> Run:
        """Start a run in the background (`POST /threads/{id}/runs`); join it later with
        `join_stream` (created `stream_resumable`, a join replays it from its start).
        Never re-sent: that would start a second run. A busy thread with `reject` is a
        `Conflict`."""
        body = compact(
            assistant_id=assistant_id,
            input=input,
            command=command,
            context=context,
            config=config,
            metadata=metadata,
            multitask_strategy=multitask_strategy,
            stream_mode=[stream_mode] if isinstance(stream_mode, str) else _listed(stream_mode),
            stream_subgraphs=stream_subgraphs,
            stream_resumable=stream_resumable,
            checkpoint={"checkpoint_id": checkpoint_id} if checkpoint_id else None,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        return await self._http.request_as(
            Run, "POST", f"/threads/{segment(thread_id)}/runs", json=body
        )

    async def wait(
        self,
        thread_id: str,
        assistant_id: str,
        *,
        input: Any = None,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float = STREAM_TIMEOUT.read or 300.0,
    ) -> WaitedRun:
        """Run and wait for the end (`POST /threads/{id}/runs/wait`): the thread's final
        values (a failed run's are `{"__error__": {"error", "message"}}`) and the run's id.
        Never re-sent: that would start a second run."""
        body = compact(
            assistant_id=assistant_id,
            input=input,
            context=context,
            config=config,
            metadata=metadata,
        )
        path = f"/threads/{segment(thread_id)}/runs/wait"
        response = await self._http.request("POST", path, json=body, timeout=timeout)
        location = response.headers.get("content-location", "").rstrip("/").split("/")
        run_id = location[-1] if len(location) >= 2 and location[-2] == "runs" else None
        try:
            values = response.json() if response.content else None
        except (ValueError, RecursionError):
            raise self._http.unexpected_body("POST", path, "the body is not JSON") from None
        return WaitedRun(run_id, values)

    async def cancel(
        self,
        thread_id: str,
        run_id: str,
        *,
        wait: bool = False,
        action: str = "interrupt",
        timeout: float | None = None,
    ) -> None:
        """Cancel a run on the server (`action`: `interrupt` keeps the thread, `rollback` undoes).

        `wait`: answer once the run has stopped. `timeout` bounds each try (seconds).
        """
        # As the SDK sends it: `1`/`0` (langgraph-api takes either; Aegra only integers).
        params = {"wait": 1 if wait else 0, "action": action}
        await self._http.request(
            "POST",
            f"/threads/{segment(thread_id)}/runs/{segment(run_id)}/cancel",
            params=params,
            idempotent=True,
            timeout=timeout,
        )

    async def list(
        self, thread_id: str, *, limit: int = 10, offset: int = 0, status: str | None = None
    ) -> list[Run]:
        params = compact(limit=limit, offset=offset, status=status)
        return await self._http.request_as(
            list[Run], "GET", f"/threads/{segment(thread_id)}/runs", params=params
        )

    async def get(self, thread_id: str, run_id: str) -> Run:
        return await self._http.request_as(
            Run, "GET", f"/threads/{segment(thread_id)}/runs/{segment(run_id)}"
        )

    async def join(self, thread_id: str, run_id: str) -> Any:
        """Wait for a run to finish and return the thread's final values."""
        return await self._http.request_json(
            "GET", f"/threads/{segment(thread_id)}/runs/{segment(run_id)}/join", timeout=300.0
        )
