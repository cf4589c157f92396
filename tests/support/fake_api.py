"""Good answers for every request a headless command makes, from fixed data: an agent
server (assistants, threads, history, runs, store, crons) and a control plane, enough
for each subcommand to run to its end. For `OddServer` (tests/support/odd_server.py),
which sends one of these unless a test swaps in an odd body for a request.

`good_answer(request)` is the answer; `run_stream()` the SSE body of a short chat run
(metadata, a token, values), which a test may cut or spoil.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fixed_servers import (
    ASSISTANTS,
    CHAT_SCHEMA,
    HISTORY,
    THREAD,
    THREAD_ID,
    THREADS,
    VERSIONS,
)
from tests.support.odd_server import Answer, Request

RUN_ID = "1f0c6a00-0000-7000-8000-0000000000a1"
CRON_ID = "1f0c6a00-0000-7000-8000-0000000000c1"
DEPLOYMENT_ID = "d0000000-0000-4000-8000-000000000001"
REVISION_ID = "e0000000-0000-4000-8000-000000000001"

CHAT_SCHEMAS = {
    **CHAT_SCHEMA,
    "input_schema": {
        "type": "object",
        "properties": {"messages": {"type": "array", "items": {"type": "object"}}},
    },
}
GRAPH = {
    "nodes": [{"id": "__start__"}, {"id": "agent"}, {"id": "__end__"}],
    "edges": [
        {"source": "__start__", "target": "agent"},
        {"source": "agent", "target": "__end__"},
    ],
}
IDLE_THREAD = {**THREAD, "status": "idle", "interrupts": {}}
# The thread once the run below has ended: what it streamed is what it kept.
DONE_STATE = {
    **HISTORY[0],
    "values": {
        "messages": [
            {"type": "human", "content": "hi", "id": "h9"},
            {"type": "ai", "content": "hello", "id": "m9"},
        ]
    },
    "next": [],
    "tasks": [],
}
ITEM = {
    "namespace": ["users", "u1"],
    "key": "k1",
    "value": {"likes": "tea"},
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:00+00:00",
}
CRON = {
    "cron_id": CRON_ID,
    "assistant_id": ASSISTANTS[0]["assistant_id"],
    "thread_id": None,
    "schedule": "0 9 * * *",
    "next_run_date": "2026-11-22T09:00:00+00:00",
    "payload": {"input": {"messages": [{"role": "user", "content": "hi"}]}},
    "metadata": {},
}
RUN = {
    "run_id": RUN_ID,
    "thread_id": THREAD_ID,
    "assistant_id": ASSISTANTS[0]["assistant_id"],
    "status": "success",
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:01+00:00",
    "metadata": {},
    "kwargs": {},
    "multitask_strategy": "reject",
}
DEPLOYMENT = {
    "id": DEPLOYMENT_ID,
    "name": "demo",
    "source": "internal_source",
    "status": "READY",
    "latest_revision_id": REVISION_ID,
    "active_revision_id": REVISION_ID,
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:00+00:00",
}
REVISION = {
    "id": REVISION_ID,
    "status": "DEPLOYED",
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:00+00:00",
}
LOG_ENTRY = {
    "id": f"{REVISION_ID}:0",
    "timestamp": 1795770000000,
    "level": "INFO",
    "message": "graph agent: ok",
}


def sse(event: str, data: Any) -> bytes:
    return f"event: {event}\r\ndata: {json.dumps(data)}\r\n\r\n".encode()


def run_stream() -> bytes:
    """A chat run's events, as langgraph-api sends them."""
    token = {"type": "AIMessageChunk", "id": "m9", "content": "hello"}
    return b"".join(
        [
            sse("metadata", {"run_id": RUN_ID, "attempt": 1}),
            sse("messages", [token, {"langgraph_node": "agent"}]),
            sse("updates", {"agent": {"messages": [{**token, "type": "ai"}]}}),
            sse("values", DONE_STATE["values"]),
        ]
    )


def _json(data: Any, status: int = 200) -> Answer:
    return Answer(json.dumps(data).encode(), status=status)


NO_CONTENT = Answer(b"", status=204)


def good_answer(request: Request) -> Answer:
    method, path = request.method, request.path
    parts = path.strip("/").split("/")
    if path.startswith("/v2/uploads/"):
        return Answer(b"", status=200)
    if path.startswith("/v2/"):
        if parts[-1] == "upload-url":
            return _json(
                {
                    "upload_url": f"http://{request.host}/v2/uploads/token",
                    "object_path": f"uploads/{DEPLOYMENT_ID}/upload.tar.gz",
                    "upload_headers": {"Content-Type": "application/gzip"},
                }
            )
        return _control_plane(method, parts)
    if path.startswith("/v1/projects/"):
        return _json({"logs": [LOG_ENTRY], "next_offset": "1"})
    if path == "/info":
        return _json({"version": "0.0.0", "flags": {}})
    if parts[0] == "assistants":
        return _assistants(parts)
    if parts[0] == "store":
        return _store(method, path)
    if parts[:2] == ["runs", "crons"]:
        if path == "/runs/crons/search":
            return _json([CRON])
        return NO_CONTENT if method == "DELETE" else _json(CRON)
    if parts[0] == "threads":
        return _threads(method, parts)
    return _json({"detail": "Not Found"}, status=404)


def _assistants(parts: list[str]) -> Answer:
    if parts == ["assistants"]:  # POST /assistants: the assistant made
        return _json(ASSISTANTS[1])
    if parts[1] == "search":
        return _json(ASSISTANTS)
    tail = parts[2] if len(parts) > 2 else ""
    if tail == "schemas":
        return _json(CHAT_SCHEMAS)
    if tail == "graph":
        return _json(GRAPH)
    if tail == "versions":
        return _json(VERSIONS)
    return _json(ASSISTANTS[0])


def _store(method: str, path: str) -> Answer:
    if path == "/store/namespaces":
        return _json({"namespaces": [["users", "u1"]]})
    if path == "/store/items/search":
        return _json({"items": [ITEM]})
    if method in ("PUT", "DELETE"):
        return NO_CONTENT
    return _json(ITEM)


def _threads(method: str, parts: list[str]) -> Answer:
    tail = parts[2:]
    if parts == ["threads", "search"]:
        return _json(THREADS)
    if parts == ["threads", "count"]:
        return _json(len(THREADS))
    if parts == ["threads"]:
        return _json(IDLE_THREAD)
    if tail == ["history"]:
        return _json(HISTORY)
    if tail[:1] == ["state"]:
        return _json({"checkpoint": HISTORY[0]["checkpoint"]} if method == "POST" else DONE_STATE)
    if tail == ["runs", "stream"] or tail[-1:] == ["stream"]:
        return Answer(run_stream(), content_type="text/event-stream", cut=True)
    if tail == ["runs", "wait"]:
        return _json(DONE_STATE["values"])
    if tail[:1] == ["runs"]:
        if tail[-1:] == ["cancel"]:
            return NO_CONTENT
        return _json([RUN] if len(tail) == 1 and method == "GET" else RUN)
    if method == "DELETE":
        return NO_CONTENT
    return _json(IDLE_THREAD)


def _control_plane(method: str, parts: list[str]) -> Answer:
    if parts[1:] == ["deployments"]:
        if method == "POST":
            return _json(DEPLOYMENT, status=201)
        return _json({"resources": [DEPLOYMENT], "offset": 0})
    if parts[-1] == "redeploy":
        return _json(DEPLOYMENT)
    if parts[-1] == "revisions":
        return _json({"resources": [REVISION], "offset": 0})
    if "revisions" in parts:
        return _json(REVISION)
    return _json(DEPLOYMENT)
