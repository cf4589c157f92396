"""Build and deploy logs as LangSmith serves them, and the source tarball upload.

Logs: `POST /v1/projects/{id}/revisions/{rid}/build_logs` and `POST /v1/projects/{id}/deploy_logs`
(or `…/revisions/{rid}/deploy_logs`), a body of filters (`level`, `query`, `start_time`,
`end_time`) and paging (`limit`, `order`, `offset`); the answer's `next_offset` is passed
back as `offset` (docs/server-quirks.md, "What the official `langgraph` CLI sends").
`follow` polls with it in ascending order, so a line is yielded once; `tail` starts as
`tail -f` and the official `langgraph deploy logs --follow` do (the newest `limit` lines,
oldest first, then the new ones: asked from the newest one's time, lines already shown
left out by id). The local control
plane's older `GET …/revisions/{rid}/logs` is read only when a control plane has no `/v1`
logs (`revision_log`).

Upload: `POST /v2/deployments/{id}/upload-url` answers a signed URL; the tarball is PUT
there without the API key (the URL is the authorisation: a cloud storage bucket on the
real service, the control plane itself locally).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

import httpx

from agent_tui.client.errors import (
    ConnectionFailed,
    NotFound,
    UnexpectedBody,
    error_from_response,
)
from agent_tui.client.models.control_plane import (
    LogEntry,
    LogsPage,
    RevisionLogs,
    UploadUrl,
)
from agent_tui.client.tls import tls_context
from agent_tui.client.transport import Transport, compact
from agent_tui.client.url_path import segment

LogKind = Literal["build", "deploy"]
MAX_LOG_PAGE = 1000
UPLOAD_TIMEOUT = httpx.Timeout(30.0, write=300.0)


@dataclass(frozen=True)
class LogQuery:
    """The filters and paging of a logs request (only what is set is sent)."""

    level: str | None = None
    query: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    limit: int = 100
    order: Literal["asc", "desc"] = "desc"
    offset: str | int | None = None

    def body(self) -> dict[str, Any]:
        return compact(
            level=self.level.upper() if self.level else None,
            query=self.query,
            start_time=self.start_time,
            end_time=self.end_time,
            limit=self.limit,
            order=self.order,
            offset=self.offset,
        )


def logs_path(kind: LogKind, deployment_id: str, revision_id: str | None) -> str:
    base = f"/v1/projects/{segment(deployment_id)}"
    if kind == "build":
        if revision_id is None:
            raise ValueError("build logs belong to a revision")
        return f"{base}/revisions/{segment(revision_id)}/build_logs"
    if revision_id is None:
        return f"{base}/deploy_logs"
    return f"{base}/revisions/{segment(revision_id)}/deploy_logs"


class LogsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def page(
        self,
        kind: LogKind,
        deployment_id: str,
        revision_id: str | None = None,
        query: LogQuery | None = None,
    ) -> LogsPage:
        """One page of build or deploy log entries."""
        body = (query or LogQuery()).body()
        path = logs_path(kind, deployment_id, revision_id)
        # A read: re-sending it changes nothing.
        return await self._http.request_as(LogsPage, "POST", path, json=body, idempotent=True)

    async def follow(
        self,
        kind: LogKind,
        deployment_id: str,
        revision_id: str | None = None,
        query: LogQuery | None = None,
        *,
        interval: float = 2.0,
        forever: bool = True,
    ) -> AsyncGenerator[LogEntry, None]:
        """Every entry from the first (oldest first), then new ones as they come.

        Pages through with `next_offset`; with `forever` it polls every `interval` seconds
        once it has caught up, else it ends there. A server that sends no `next_offset`
        is asked again from the count of entries read."""
        async for entries, _ in self._pages(
            kind, deployment_id, revision_id, query, interval=interval, forever=forever
        ):
            for entry in entries:
                yield entry

    async def _pages(
        self,
        kind: LogKind,
        deployment_id: str,
        revision_id: str | None,
        query: LogQuery | None,
        *,
        interval: float,
        forever: bool,
    ) -> AsyncGenerator[tuple[list[LogEntry], bool], None]:
        """`follow`'s pages, each with whether it caught up with the log's end."""
        query = replace(query or LogQuery(), order="asc", limit=MAX_LOG_PAGE)
        offset: str | int = query.offset or 0
        while True:
            page = await self.page(kind, deployment_id, revision_id, replace(query, offset=offset))
            if page.next_offset is not None and page.next_offset != "":
                offset = page.next_offset
            else:
                offset = int(offset or 0) + len(page.logs)
            caught_up = len(page.logs) < MAX_LOG_PAGE
            yield page.logs, caught_up
            if not caught_up:
                continue
            if not forever:
                return
            await asyncio.sleep(interval)

    async def tail(
        self,
        kind: LogKind,
        deployment_id: str,
        revision_id: str | None = None,
        query: LogQuery | None = None,
        *,
        interval: float = 2.0,
        forever: bool = True,
    ) -> AsyncGenerator[LogEntry, None]:
        """The newest `query.limit` entries (oldest first), then new ones as they come.

        The new ones are asked from the newest shown entry's time on; entries of that
        same time that come before it in the log are older ones (a local build's lines
        all carry their revision's creation time), so they are left out too."""
        query = query or LogQuery()
        newest = await self.page(
            kind, deployment_id, revision_id, replace(query, order="desc", offset=None)
        )
        shown = list(reversed(newest.logs))
        for entry in shown:
            yield entry
        since = _iso_time(shown[-1].timestamp) if shown else None
        seen = {_entry_key(entry) for entry in shown}
        anchor = _entry_key(shown[-1]) if shown else None
        met = anchor is None  # the newest shown entry, met again: what follows it is new
        before: list[LogEntry] = []
        after = replace(query, start_time=since or query.start_time, offset=None)
        async for entries, caught_up in self._pages(
            kind, deployment_id, revision_id, after, interval=interval, forever=forever
        ):
            for entry in entries:
                key = _entry_key(entry)
                if met:
                    if key not in seen:
                        yield entry
                elif key == anchor:
                    met, before = True, []
                else:
                    before.append(entry)
            if caught_up and not met:
                # The newest shown entry is gone (the log turned over): what was not
                # shown comes now.
                met = True
                for entry in before:
                    if _entry_key(entry) not in seen:
                        yield entry
                before = []

    async def revision_log(self, deployment_id: str, revision_id: str) -> RevisionLogs:
        """A revision's build lines and its status, as one block.

        Read from `build_logs`; a control plane without it (a 404 there) is asked its
        `…/revisions/{rid}/logs`, which an older local control plane serves."""
        try:
            lines = [
                entry.message
                async for entry in self.follow("build", deployment_id, revision_id, forever=False)
            ]
        except NotFound:
            return await self._http.request_as(
                RevisionLogs,
                "GET",
                f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}/logs",
            )
        status = await self._http.request_json(
            "GET", f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}"
        )
        return RevisionLogs(
            revision_id=revision_id,
            status=status.get("status") if isinstance(status, dict) else None,
            lines=lines,
        )


class UploadsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def upload_url(self, deployment_id: str) -> UploadUrl:
        return await self._http.request_as(
            UploadUrl,
            "POST",
            f"/v2/deployments/{segment(deployment_id)}/upload-url",
            json={"supports_upload_headers": True},
        )

    async def put(self, granted: UploadUrl, tarball: bytes) -> None:
        """PUT the tarball to the granted URL, without the control plane's key."""
        headers: Mapping[str, str] = granted.upload_headers or {"Content-Type": "application/gzip"}
        url = granted.upload_url
        try:
            loopback = httpx.URL(url).host in ("127.0.0.1", "localhost", "::1")
            async with httpx.AsyncClient(
                trust_env=not loopback, timeout=UPLOAD_TIMEOUT, verify=tls_context(url)
            ) as http:
                response = await http.put(url, content=tarball, headers=dict(headers))
        except (httpx.InvalidURL, UnicodeEncodeError, ValueError, TypeError) as exc:
            # The control plane's URL or headers are unusable: not the user's mistake.
            raise UnexpectedBody(
                f"the upload URL or its headers cannot be used ({type(exc).__name__})",
                method="POST",
                url=self._http.url_for("/v2/deployments/…/upload-url"),
            ) from None
        except httpx.HTTPError as exc:
            raise ConnectionFailed(
                f"the upload did not get through: {exc or type(exc).__name__}",
                method="PUT",
                url=_where(url),
            ) from exc
        if not response.is_success:
            raise error_from_response(
                status_code=response.status_code,
                reason=response.reason_phrase,
                body=_body(response),
                method="PUT",
                url=_where(url),
                auth_scheme="none",
            )


def _iso_time(timestamp: int | float | str | None) -> str | None:
    """An entry's time as the `start_time` filter takes it (ISO 8601)."""
    if isinstance(timestamp, int | float) and not isinstance(timestamp, bool):
        try:
            return datetime.fromtimestamp(timestamp / 1000, UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return timestamp if isinstance(timestamp, str) and timestamp else None


def _entry_key(entry: LogEntry) -> tuple[object, ...]:
    """What tells entries apart: the id, else the time and the text."""
    return (entry.id,) if entry.id else (entry.timestamp, entry.level, entry.message)


def _body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text or None


def _where(url: str) -> str:
    """The upload URL without its path and query: they carry its signature."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, UnicodeEncodeError, ValueError, TypeError):
        return "the upload URL"
    return f"{parsed.scheme}://{parsed.netloc.decode('ascii', 'replace')}/…"
