"""How the Assistants table and an assistant's detail look, on fixed data (a fake server
with fixed ids and timestamps, and a fixed clock), so the pictures are stable."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from tests.support.assistants import AssistantsApp
from tests.support.fixed_servers import ASSISTANTS, NOW, assistants_server
from tests.support.snapshots import steady_cursors
from tests.support.waiting import workers_done


def make_app() -> AssistantsApp:
    client = AgentServerClient("http://agent.test", http_transport=assistants_server())
    return AssistantsApp(client, clock=lambda: NOW, theme="textual-dark")


async def settle(pilot: Pilot[None]) -> None:
    await workers_done(pilot.app)
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
