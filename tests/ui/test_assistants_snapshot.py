"""How the Assistants table and an assistant's detail look, on fixed data (a fake server
with fixed ids and timestamps, and a fixed clock), so the pictures are stable."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from assistants_support import AssistantsApp
from snapshot_support import steady_cursors
from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen

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


def fixed_server() -> httpx.MockTransport:
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


def make_app() -> AssistantsApp:
    client = AgentServerClient("http://agent.test", http_transport=fixed_server())
    return AssistantsApp(client, clock=lambda: NOW, theme="textual-dark")


async def settle(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_assistants_table_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def loaded(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(110, 20), run_before=loaded)


def test_assistant_detail_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def detail_with_a_diff(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, AssistantsApp)
        await settle(pilot)
        app.assistants.table.move_to(ASSISTANTS[1]["assistant_id"])
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AssistantDetailScreen)
        await pilot.press("down")  # version 2 against the active version 3
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 32), run_before=detail_with_a_diff)


def test_new_assistant_form_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def form_with_a_problem(pilot: Pilot[None]) -> None:
        from textual.widgets import Input

        from agent_tui.tui.screens.assistants.form import AssistantFormScreen

        app = pilot.app
        assert isinstance(app, AssistantsApp)
        await settle(pilot)
        app.assistants.graph_filter = "chat"
        await pilot.press("n")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, AssistantFormScreen) and form.schema_form is not None
        form.query_one("#name", Input).value = "pirate-bot"
        form.schema_form.query_one("#input-2", Input).value = "-3"
        await pilot.press("ctrl+s")
        await settle(pilot)
        steady_cursors(app)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(100, 40), run_before=form_with_a_problem)
