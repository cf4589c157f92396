"""Versions in the detail screen: diffs against the active one, and switching versions
so that runs really use the chosen version's context (the in-memory runtime bug)."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, Static

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.schema_form import SchemaForm
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.assistants import (
    SIZE,
    AssistantsApp,
    chat_by_c,
    chat_graph_listing,
    loaded,
    open_detail,
    unique,
)
from tests.support.chat import ai_texts, ended, state_line
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor


async def run_counter(client: AgentServerClient, assistant_id: str, context: dict | None) -> int:  # type: ignore[type-arg]
    """A run started the way the app starts runs: with the override's context, if any."""
    thread = await client.threads.create()
    async with client.runs.stream(
        thread.thread_id, assistant_id, input={"n": 5}, stream_mode="values", context=context
    ) as stream:
        values = [event.data async for event in stream if event.event == "values"]
    return int(values[-1]["n"])


def text_of(screen: AssistantDetailScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_highlighting_a_version_shows_its_diff_against_the_active_one(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create(
        "counter", {"step": 10, "double": False}, unique("diff")
    )
    await client.assistants.update(created.assistant_id, {"step": 3, "label": "x"})
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        detail = await open_detail(pilot, wait_for, app, created.assistant_id)
        versions = detail.query_one("#versions", DataTable)
        assert [versions.get_row_at(i)[0].plain for i in range(versions.row_count)] == ["2", "1"]
        assert versions.get_row_at(0)[3].plain == "● active"
        assert "is the active version" in text_of(detail, "#version-diff")

        await pilot.press("down")
        await pilot.pause()
        diff = text_of(detail, "#version-diff")
        assert "Version 1 against the active version 2" in diff
        assert "~ step: 3 → 10" in diff
        assert "- label" in diff and "+ double = false" in diff
        # The colours say which is which.
        rendered = detail.query_one("#version-diff", Static).render()
        styles = {str(span.style) for span in rendered.spans}  # type: ignore[union-attr]
        for colour in ("green", "red", "yellow"):
            assert any(colour in style for style in styles), colour


async def test_setting_an_older_version_active_warns_and_fixes_the_apps_runs(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create(
        "counter", {"step": 10, "double": False}, unique("switch")
    )
    await client.assistants.update(created.assistant_id, {"step": 3})
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        detail = await open_detail(pilot, wait_for, app, created.assistant_id)
        assert app.context_overrides.context_for_run(created.assistant_id) is None

        await pilot.press("down", "a")  # version 1, make it active
        await wait_for(pilot, lambda: detail.active is not None and detail.active.version == 1)
        check = detail.check
        assert check is not None and check.mismatch  # the in-memory runtime kept {"step": 3}

        warning = detail.query_one("#version-warning", Static)
        assert warning.has_class("-shown")
        text = str(warning.render())
        assert (
            "version 1" in text
            and "Runs started by agent-tui will pass version 1's context" in text
        )
        await toast_saying(pilot, "Runs started by agent-tui")
        versions = detail.query_one("#versions", DataTable)
        assert versions.get_row("1")[3].plain == "● active"

        override = app.context_overrides.context_for_run(created.assistant_id)
        assert override == {"step": 10, "double": False}
        # (5 + 10), not doubled: version 1's context, as switching versions means.
        assert await run_counter(client, created.assistant_id, override) == 15

        # Back to version 2: the assistant's context matches again, the override goes.
        await pilot.press("up", "a")
        await wait_for(pilot, lambda: detail.active is not None and detail.active.version == 2)
        assert not warning.has_class("-shown")
        assert created.assistant_id not in app.context_overrides


async def test_edit_and_delete_from_the_detail(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create("counter", {"step": 4}, unique("detail"))
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        detail = await open_detail(pilot, wait_for, app, created.assistant_id)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen))
        form = app.screen
        assert isinstance(form, AssistantFormScreen)
        await wait_for(pilot, lambda: form.schema_form is not None)
        form.query_one(SchemaForm).query_one("#input-0", Input).value = "5"
        await pilot.press("ctrl+s")  # nothing dropped: no question asked
        await wait_for(
            pilot,
            lambda: (
                app.screen is detail and detail.active is not None and detail.active.version == 2
            ),
        )
        assert detail.query_one("#detail-context", JsonView).data == {"step": 5}

        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is app.assistants, what="back to the table")
        await wait_for(pilot, lambda: app.assistants.table.get_item(created.assistant_id) is None)
        with pytest.raises(NotFound):
            await client.assistants.get(created.assistant_id)


async def test_c_in_the_detail_chats_with_the_highlighted_version(
    agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("detail-chat")
    bot = await client.assistants.create("chat", {"style": "plain", "token_delay_ms": 0}, name)
    bot = await client.assistants.update(bot.assistant_id, {"style": "pirate", "token_delay_ms": 0})
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await chat_graph_listing(pilot, wait_for, app, bot.assistant_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen))
        detail = app.screen
        assert isinstance(detail, AssistantDetailScreen)
        versions = detail.query_one("#versions", DataTable)
        await wait_for(pilot, lambda: versions.row_count == 2, what="both versions")
        await pilot.press("down")  # version 1, not the active one

        view, pane = await chat_by_c(pilot, wait_for, app)
        assert f"{name} v1 (not the active version)" in state_line(pane)
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        assert ai_texts(pane) == ["You said: hi"]  # version 1's plain style, not the pirate
        runs = await client.runs.list(view.thread_id)
        assert [run.assistant_id for run in runs] == [bot.assistant_id]
