"""Fake agent servers answering fixed data (fixed ids and timestamps), for pictures that
are the same on every run: httpx `MockTransport`s for an `AgentServerClient`.

`assistants_server` (the Assistants screens), `thread_view_server` (one interrupted chat
thread and its history), `threads_server` (the Threads screen) and `agent_server`, all of
them in one (the modals, opened from any of those screens).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import httpx

# The assistants.

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _assistant(
    n: int, name: str, graph: str, version: int, updated: str, **extra: Any
) -> dict[str, Any]:
    return {
        "assistant_id": f"{n:08d}-0000-4000-8000-000000000000",
        "graph_id": graph,
        "name": name,
        "version": version,
        "created_at": "2026-11-01T09:00:00+00:00",
        "updated_at": updated,
        "context": {},
        "metadata": {},
        **extra,
    }


ASSISTANTS = [
    _assistant(
        1, "chat", "chat", 1, "2026-11-20T12:00:00+00:00", metadata={"created_by": "system"}
    ),
    _assistant(
        2,
        "pirate-bot",
        "chat",
        3,
        "2026-11-21T11:55:00+00:00",
        description="Talks like a pirate, loudly.",
        context={"style": "pirate", "shout": True},
        metadata={"team": "demo", "owner": "ann"},
    ),
    _assistant(
        3, "counter", "counter", 1, "2026-11-21T09:00:00+00:00", metadata={"created_by": "system"}
    ),
    _assistant(4, "ten-step", "counter", 2, "2026-11-21T11:30:00+00:00", context={"step": 10}),
]


VERSIONS = [
    {**ASSISTANTS[1], "version": 3, "created_at": "2026-11-21T11:55:00+00:00"},
    {
        **ASSISTANTS[1],
        "version": 2,
        "context": {"style": "pirate", "token_delay_ms": 0},
        "created_at": "2026-11-21T10:00:00+00:00",
    },
    {**ASSISTANTS[1], "version": 1, "context": {}, "created_at": "2026-11-20T10:00:00+00:00"},
]


CHAT_SCHEMA = {
    "graph_id": "chat",
    "context_schema": {
        "type": "object",
        "properties": {
            "style": {"default": "plain", "enum": ["plain", "pirate"], "type": "string"},
            "shout": {"default": False, "type": "boolean", "description": "Capital letters."},
            "token_delay_ms": {"default": 20, "minimum": 0, "type": "integer"},
        },
    },
}


def assistants_server() -> httpx.MockTransport:
    """The assistants: search (by graph), one by id, versions and the chat schema."""

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/schemas"):
            return httpx.Response(200, json=CHAT_SCHEMA)
        if path == "/assistants/search":
            body = json.loads(request.content)
            found = [a for a in ASSISTANTS if body.get("graph_id") in (None, a["graph_id"])]
            found.sort(key=lambda a: a["name"])
            return httpx.Response(200, json=found if body.get("offset", 0) == 0 else [])
        if path.endswith("/versions"):
            first = json.loads(request.content).get("offset", 0) == 0
            return httpx.Response(200, json=VERSIONS if first else [])
        for assistant in ASSISTANTS:
            if path == f"/assistants/{assistant['assistant_id']}":
                return httpx.Response(200, json=assistant)
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


# One thread and its history.

THREAD_ID = "1f0c6a00-0000-7000-8000-00000000c0de"


def checkpoint_id(n: int) -> str:
    return f"1f0c0000-0000-6000-8000-0000000000{n:02d}"


def message(n: int, kind: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "content": content, "id": f"m{n}", **extra}


HUMAN = message(1, "human", "deploy to staging")


AI = message(
    2,
    "ai",
    "",
    tool_calls=[{"name": "deploy", "args": {"target": "staging"}, "id": "c1"}],
)


def state(
    n: int, step: int, source: str, values: dict[str, Any], next_: list[str], **extra: Any
) -> dict[str, Any]:
    return {
        "values": values,
        "next": next_,
        "tasks": extra.pop("tasks", []),
        "metadata": {"source": source, "step": step},
        "created_at": f"2026-11-21T09:00:{n:02d}+00:00",
        "checkpoint": {"checkpoint_id": checkpoint_id(n), "checkpoint_ns": ""},
        "parent_checkpoint": {"checkpoint_id": checkpoint_id(n - 1)} if n > 1 else None,
        "interrupts": [],
    }


HISTORY = [
    state(
        4,
        2,
        "loop",
        {"messages": [HUMAN, AI], "approved": None},
        ["approve"],
        tasks=[{"id": "t3", "name": "approve", "interrupts": [{"value": {"question": "Deploy?"}}]}],
    ),
    state(3, 1, "loop", {"messages": [HUMAN]}, ["agent"]),
    state(2, 0, "loop", {"messages": [HUMAN]}, ["agent"]),
    state(1, -1, "input", {"messages": []}, ["__start__"]),
]
HISTORY[3]["tasks"] = [{"id": "t0", "name": "__start__", "result": {"messages": [HUMAN]}}]


THREAD = {
    "thread_id": THREAD_ID,
    "status": "interrupted",
    "metadata": {"graph_id": "chat"},
    "created_at": "2026-11-21T09:00:00+00:00",
    "updated_at": "2026-11-21T09:00:04+00:00",
}


def thread_view_server() -> httpx.MockTransport:
    """`THREAD`, an interrupted chat thread, and its history (paged)."""

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/history"):
            body = json.loads(request.content)
            before = (body.get("before") or {}).get("configurable", {}).get("checkpoint_id")
            start = 0
            if before:
                start = next(
                    i + 1
                    for i, s in enumerate(HISTORY)
                    if s["checkpoint"]["checkpoint_id"] == before
                )
            return httpx.Response(200, json=HISTORY[start : start + body["limit"]])
        if path == f"/threads/{THREAD_ID}":
            return httpx.Response(200, json=THREAD)
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


# The Threads screen's threads.

UPDATED = "2026-11-21T09:{:02d}:00+00:00"


def fake_thread(
    n: int, status: str, graph: str | None, last: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "thread_id": f"1f0c6a00-0000-7000-8000-{n:012x}",
        "status": status,
        "metadata": {"graph_id": graph} if graph else {},
        "created_at": UPDATED.format(n),
        "updated_at": UPDATED.format(50 - n),
        "extracted": {"last_message": last},
    }


THREADS = [
    fake_thread(1, "idle", "chat", {"type": "ai", "content": "You said: hello"}),
    fake_thread(2, "busy", "chat", {"type": "human", "content": "count to 2000"}),
    fake_thread(
        3,
        "interrupted",
        "chat",
        {"type": "ai", "content": "", "tool_calls": [{"name": "deploy", "args": {}}]},
    ),
    fake_thread(4, "error", "chat", {"type": "human", "content": "please fail [bold]now[/]"}),
    fake_thread(5, "interrupted", "counter", None),
    fake_thread(6, "idle", None, None),
]


STATE = {
    "values": {
        "messages": [
            {"type": "human", "content": "deploy to staging", "id": "1"},
            {
                "type": "ai",
                "content": "",
                "id": "2",
                "tool_calls": [{"name": "deploy", "args": {"target": "staging"}, "id": "c1"}],
            },
        ],
        "approved": None,
    },
    "next": ["approve"],
    "tasks": [{"id": "t1", "name": "approve", "interrupts": [{"value": {"question": "Deploy?"}}]}],
    "metadata": {"source": "loop", "step": 2},
    "created_at": "2026-11-21T09:00:00+00:00",
    "checkpoint": {"checkpoint_id": "1f0c0000-0000-6000-8000-000000000002", "checkpoint_ns": ""},
    "interrupts": [],
}


def threads_server() -> httpx.MockTransport:
    """`THREADS`: search (paged), count, one thread and a state."""

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/threads/search":
            body = json.loads(request.content)
            return httpx.Response(
                200, json=THREADS[body["offset"] : body["offset"] + body["limit"]]
            )
        if path == "/threads/count":
            return httpx.Response(200, json=len(THREADS))
        if path.endswith("/state"):
            return httpx.Response(200, json=STATE)
        if path.startswith("/threads/"):
            return httpx.Response(200, json=THREADS[2])
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


# All of them in one server.

GRAPH = {
    "nodes": [
        {"id": "__start__", "type": "schema", "data": "__start__"},
        {"id": "agent", "type": "runnable", "data": {"name": "agent"}},
        {"id": "approve", "type": "runnable", "data": {"name": "approve"}},
        {"id": "__end__", "type": "schema", "data": "__end__"},
    ],
    "edges": [
        {"source": "__start__", "target": "agent"},
        {"source": "agent", "target": "approve", "conditional": True},
        {"source": "agent", "target": "__end__", "conditional": True},
        {"source": "approve", "target": "__end__"},
    ],
}


def agent_server() -> httpx.MockTransport:
    """Threads, one thread's history and the assistants, each as its own server above answers."""
    threads = threads_server().handler
    thread_view = thread_view_server().handler
    assistants = assistants_server().handler

    def answer(request: httpx.Request) -> Any:
        path = request.url.path
        if path.startswith("/assistants/") and path.endswith("/graph"):
            return httpx.Response(200, json=GRAPH)
        if path.startswith("/assistants"):
            return assistants(request)
        if path == f"/threads/{THREAD_ID}/state":
            return httpx.Response(200, json=HISTORY[0])
        if path.startswith(f"/threads/{THREAD_ID}"):
            return thread_view(request)
        if path in {"/threads/search", "/threads/count"}:
            return threads_with_status(request)
        return threads(request)

    return httpx.MockTransport(answer)


def threads_with_status(request: httpx.Request) -> httpx.Response:
    """The fixed threads, only those of the status asked for (the attention queue asks)."""
    body = json.loads(request.content or b"{}")
    found = [t for t in THREADS if body.get("status") in (None, t["status"])]
    if request.url.path == "/threads/count":
        return httpx.Response(200, json=len(found))
    offset = body.get("offset", 0)
    return httpx.Response(200, json=found[offset : offset + body["limit"]])
