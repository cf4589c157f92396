"""The log endpoints the official CLI reads: ``POST /v1/projects/{id}/revisions/{rid}/build_logs``
and ``POST /v1/projects/{id}/deploy_logs`` (or per revision).

Build logs are a revision's log lines (what ``…/logs`` serves); deploy logs are the lines
the deployment's agent server wrote (its ``server.log``, one per deployment: the per
revision form serves the same lines). Each entry is ``{id, timestamp, level, message}``,
the timestamp in epoch milliseconds. A build line has no time of its own: it carries its
revision's creation time. The body filters (``level``, ``query``: a case-insensitive
substring, ``start_time``/``end_time``: ISO 8601, inclusive) and pages (``order`` ``asc``
or ``desc``, ``limit``, ``offset``); the answer's ``next_offset`` is the offset after the
page, a string, as the CLI passes it back.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_tui.client.models.deployment_request import RequestModel
from agent_tui.local.control_plane.validation import InvalidRequest, parse_body, read_body

MAX_LIMIT = 1000
_SERVER_LOG_TAIL = 4 << 20
_SERVER_LINE = re.compile(
    r"^(?P<time>\d{4}-\d\d-\d\dT[\d:.]+Z?)\s+\[(?P<level>\w+)\s*\]\s?(?P<rest>.*)$"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FAILED = ("build failed", "deploy failed", "restart failed", "internal error")


class LogQuery(RequestModel):
    level: str | None = None
    query: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    limit: int = Field(default=100, ge=1, le=MAX_LIMIT)
    order: Literal["asc", "desc"] = "desc"
    offset: int | str | None = None


def _millis(text: str | None, field: str) -> int | None:
    if text is None:
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        raise InvalidRequest(
            [
                {
                    "loc": ["body", field],
                    "msg": "Input should be an ISO 8601 time",
                    "type": "value_error",
                }
            ]
        ) from None


def _offset(value: int | str | None) -> int:
    if value is None or value == "":
        return 0
    try:
        offset = int(value)
    except ValueError:
        offset = -1
    if offset < 0:
        raise InvalidRequest(
            [
                {
                    "loc": ["body", "offset"],
                    "msg": "Input should be an offset this endpoint gave",
                    "type": "value_error",
                }
            ]
        )
    return offset


def build_entries(revision: dict[str, Any], lines: list[str]) -> list[dict[str, Any]]:
    stamp = _millis(revision.get("created_at"), "created_at") or 0
    return [
        {
            "id": f"{revision['id']}:{index}",
            "timestamp": stamp,
            "level": "ERROR" if line.startswith(_FAILED) else "INFO",
            "message": line,
        }
        for index, line in enumerate(lines)
    ]


def server_entries(log_file: Path) -> list[dict[str, Any]]:
    """The agent server's lines (its last few MiB), with their time and level when the
    line carries them, else the previous line's."""
    try:
        with open(log_file, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            start = max(0, size - _SERVER_LOG_TAIL)
            file.seek(start)
            raw = file.read()
    except OSError:
        return []
    text = raw.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if start and lines:
        lines = lines[1:]  # a partial first line
    entries: list[dict[str, Any]] = []
    stamp, level = 0, "INFO"
    for index, line in enumerate(lines):
        plain = message = _ANSI.sub("", line)
        if match := _SERVER_LINE.match(plain):
            message = match["rest"]
            stamp = _millis(match["time"], "timestamp") or stamp
            level = match["level"].upper()
            if level == "WARN":
                level = "WARNING"
        entries.append(
            {"id": f"{start}:{index}", "timestamp": stamp, "level": level, "message": message}
        )
    return entries


def page(entries: list[dict[str, Any]], query: LogQuery) -> dict[str, Any]:
    start, end = _millis(query.start_time, "start_time"), _millis(query.end_time, "end_time")
    needle = (query.query or "").casefold()
    level = (query.level or "").upper()
    kept = [
        e
        for e in entries
        if (not level or e["level"] == level)
        and (not needle or needle in e["message"].casefold())
        and (start is None or e["timestamp"] >= start)
        and (end is None or e["timestamp"] <= end)
    ]
    if query.order == "desc":
        kept.reverse()
    offset = _offset(query.offset)
    chosen = kept[offset : offset + query.limit]
    return {"logs": chosen, "next_offset": str(offset + len(chosen))}


async def log_query(request: Request) -> LogQuery:
    raw = await read_body(request)
    return parse_body(LogQuery, raw or b"{}")


async def answer(entries: list[dict[str, Any]], request: Request) -> Response:
    return JSONResponse(page(entries, await log_query(request)))
