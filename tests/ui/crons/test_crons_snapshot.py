"""How `:crons` looks, on fixed data (a fake server, fixed ids and a fixed clock), and
hostile text from the real server shown inertly in the list and in a cron's detail."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from textual.widgets import Input, TextArea

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.crons.detail import CronDetailScreen
from agent_tui.tui.screens.crons.form import CronFormScreen
from agent_tui.tui.screens.crons.list import CronsScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.crons import YEARLY, label, made_crons, open_crons, row_of
from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls
from tests.support.screen import painted_control_codes, screen_text
from tests.support.shell import ShellHarness
from tests.support.snapshots import settled, steady_cursors
from tests.support.threads import HOSTILE
from tests.support.waiting import WaitFor

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ASSISTANT = "00000001-0000-4000-8000-000000000000"


def _cron(n: int, schedule: str, **extra: Any) -> dict[str, Any]:
    cron_id = f"1f0c6a00-0000-7000-8000-{n:012x}"
    return {
        "cron_id": cron_id,
        "assistant_id": ASSISTANT,
        "thread_id": None,
        "schedule": schedule,
        "timezone": None,
        "end_time": None,
        "next_run_date": None,
        "enabled": True,
        "on_run_completed": "delete",
        "payload": {"input": {"n": n}, "config": {"configurable": {"cron_id": cron_id}}},
        "metadata": {},
        "created_at": "2026-11-01T09:00:00+00:00",
        "updated_at": "2026-11-01T09:00:00+00:00",
        **extra,
    }


CRONS = [
    _cron(1, "0 9 * * 1-5"),
    _cron(
        2, "30 6 * * 1", timezone="Europe/Paris", thread_id="1f0c6a00-0000-7000-8000-0000deadbeef"
    ),
    _cron(3, "*/15 * * * *", end_time="2026-11-21T12:40:00+00:00", enabled=False),
    _cron(4, YEARLY, end_time="2026-01-01T00:00:00+00:00"),
]
ASSISTANTS = [
    {
        "assistant_id": ASSISTANT,
        "graph_id": "chat",
        "name": "morning-digest",
        "version": 1,
        "created_at": "2026-11-01T09:00:00+00:00",
        "updated_at": "2026-11-01T09:00:00+00:00",
        "context": {},
        "metadata": {},
    }
]


def fake_server() -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/runs/crons/search":
            body = json.loads(request.content)
            return httpx.Response(200, json=CRONS[body["offset"] : body["offset"] + body["limit"]])
        if path == "/assistants/search":
            body = json.loads(request.content)
            return httpx.Response(200, json=ASSISTANTS if body.get("offset", 0) == 0 else [])
        if path.startswith("/runs/crons/") and request.method == "GET":
            cron_id = path.rsplit("/", 1)[-1]
            return httpx.Response(200, json=next(c for c in CRONS if c["cron_id"] == cron_id))
        if path == "/threads/search" or (path.startswith("/threads/") and path.endswith("/runs")):
            return httpx.Response(200, json=[])  # the runs a cron started: none yet
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def test_crons_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness(CronsScreen(client, clock=lambda: NOW))
    app.client = client
    app.connection_status = "connected · http://agent.test"
    # Next runs from the fixed clock: weekdays 09:00, Monday 06:30 in Paris (05:30
    # UTC), every quarter hour (disabled: struck through), and one whose end has passed.
    assert snap_compare(app, terminal_size=(120, 14), run_before=settled)


def test_cron_form_snapshot(snap_compare: Callable[..., bool]) -> None:
    """The new-cron form with a schedule typed: its next three runs, from the fixed clock,
    in Paris time shown in UTC."""
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    form = CronFormScreen(client, assistant_id=ASSISTANT, clock=lambda: NOW)
    app = ShellHarness(form)
    app.client = client

    async def typed(pilot: Any) -> None:
        await settled(pilot)
        form.query_one("#input", TextArea).text = "What is on today?"
        form.query_one("#schedule", Input).value = "0 9 * * 1-5"
        form.query_one("#timezone", Input).value = "Europe/Paris"
        await settled(pilot)
        steady_cursors(pilot.app)
        await pilot.pause()  # the cursors' rows drawn again, still

    assert snap_compare(app, terminal_size=(110, 36), run_before=typed)


async def test_hostile_text_in_a_cron_is_shown_inertly(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    tag = label()
    assistant = await client.assistants.create("counter", name=f"{tag} {HOSTILE}")
    async with made_crons(client) as made:
        # The server keeps `end_time` as sent, unchecked: hostile text comes back in it.
        async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
            answer = await http.post(
                "/runs/crons",
                json={
                    "assistant_id": assistant.assistant_id,
                    "schedule": YEARLY,
                    "end_time": EVERYTHING,
                    "input": {"note": HOSTILE},
                    "metadata": {EVERYTHING: EVERYTHING},
                },
            )
        assert answer.is_success, answer.text
        cron = made.add(await client.crons.get(answer.json()["cron_id"]))
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(160, 40)) as pilot:
            screen = await open_crons(app, pilot, wait_for, expect=[cron.cron_id])
            row = row_of(screen, cron.cron_id)
            # The name as text (cut with … at the column's width), markup and all.
            assert row[2].startswith(f"{tag} [@click=app.")
            assert row[5] == "—"  # an end time that is no time is not shown as one
            await pilot.pause()
            assert painted_control_codes(app) == []
            assert screen.table.move_to(cron.cron_id)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CronDetailScreen), what="detail")
            detail = app.screen
            assert isinstance(detail, CronDetailScreen)
            await wait_for(pilot, lambda: detail.found is not None, what="the runs")
            payload = detail.query_one("#cron-payload", JsonView)
            assert "[@click=app.quit]x[/]" in payload.text
            await pilot.pause()
            painted = screen_text(app)
            assert "[bold]b" in painted  # shown, not applied
            assert f"{MARKER}\\u001b]0;pwned" in painted  # the metadata, JSON-escaped
            assert terminal_controls(painted) == []
            assert painted_control_codes(app) == []
            await pilot.click("#cron-summary", offset=(40, 1))
            assert app.is_running


def test_cron_detail_snapshot(snap_compare: Callable[..., bool]) -> None:
    """`enter` on a cron: what it runs, its next three runs, its payload, the runs it started."""
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness(CronsScreen(client, clock=lambda: NOW))
    app.client = client
    app.connection_status = "connected · http://agent.test"

    async def opened(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press("enter")
        await settled(pilot)
        steady_cursors(pilot.app)
        await pilot.pause()  # the cursors' rows drawn again, still

    assert snap_compare(app, terminal_size=(110, 36), run_before=opened)
