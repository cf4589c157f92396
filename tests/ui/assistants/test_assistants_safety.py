"""Hostile server strings stay inert; read-only mode refuses every change; server errors
keep the form open with what was typed."""

from __future__ import annotations

import json

import httpx
from textual.widgets import Input, Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.schema_form import SchemaForm
from agent_tui.tui.widgets.json_view import JsonView
from agent_tui.tui.widgets.resource_table import NAME_WIDTH
from tests.support.assistants import SIZE, AssistantsApp, loaded, select, unique
from tests.support.hostile_screens import GRAPH, MARKUP, SHAPES, drawn_inertly, hostile_assistant
from tests.support.hostile_text import MARKER
from tests.support.screen import screen_text, toast_saying
from tests.support.waiting import WaitFor

# Markup that would quit the app when clicked, a style, a screen clear, a window title
# (OSC 0), a clipboard write (OSC 52) and a colour (CSI).
HOSTILE = (
    "[@click=app.quit]x[/] [bold]b[/bold]\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[31mred"
)
SHOWN = "[@click=app.quit]x[/] [bold]b[/bold]red"


async def test_hostile_names_metadata_and_context_are_shown_literally(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("evil") + HOSTILE
    created = await client.assistants.create(
        "loop", {"note": HOSTILE}, name, {"owner": HOSTILE}, description=HOSTILE
    )
    app = AssistantsApp(client, graph_id="loop")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        cells = [cell.plain for cell in app.assistants.table.get_row(created.assistant_id)]
        shown = name.replace(HOSTILE, SHOWN)  # longer than the column: cut, in full below
        assert cells[0] == shown[: NAME_WIDTH - 1] + "…"
        await pilot.click("#resource-table", offset=(4, 1))

        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen))
        detail = app.screen
        assert isinstance(detail, AssistantDetailScreen)
        await wait_for(pilot, lambda: detail.active is not None)
        summary = str(detail.query_one("#detail-summary", Static).render())
        assert summary.count(SHOWN) == 2  # the name and the description
        assert "\x1b" not in summary
        # JSON shows control characters escaped (\u001b): visible, never sent raw.
        for view in ("#detail-context", "#detail-metadata"):
            shown = detail.query_one(view, JsonView).text
            assert "[@click=app.quit]x[/] [bold]b[/bold]" in shown
            assert "\x1b" not in shown and "\x07" not in shown
        await pilot.click("#detail-summary", offset=(2, 0))
        await pilot.click("#detail-metadata", offset=(6, 1))
        await pilot.pause()
        assert app.is_running and app.screen is detail


async def test_a_100k_character_name_leaves_every_column_in_view(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("long") + "x" * 100_000
    created = await client.assistants.create("loop", {}, name)
    app = AssistantsApp(client, graph_id="loop")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        table = app.assistants.table
        shown = [cell.plain for cell in table.get_row(created.assistant_id)]
        assert shown[0].startswith(name[:20]) and shown[0].endswith("…")
        widths = [column.get_render_width(table) for column in table.columns.values()]
        assert sum(widths) <= table.size.width  # Graph, Version, Updated and Id in view
        assert created.assistant_id[:8] in screen_text(app)


async def test_read_only_refuses_every_change_with_the_reason(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create("counter", {"step": 1}, unique("ro"))
    await client.assistants.update(created.assistant_id, {"step": 2})
    app = AssistantsApp(client, graph_id="counter", readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        reason = "(started with --readonly)"
        await pilot.press("n", "e", "ctrl+d")
        # Read while they are up: a toast lasts seconds, opening the detail on a loaded
        # machine may take longer.
        for what in ("create an assistant", "edit an assistant", "delete an assistant"):
            await toast_saying(pilot, f"Read-only mode: cannot {what} {reason}")
        assert app.screen is app.assistants  # no form, no confirmation
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen))
        detail = app.screen
        assert isinstance(detail, AssistantDetailScreen)
        await wait_for(pilot, lambda: detail.active is not None)
        await pilot.press("down", "a", "e", "ctrl+d")
        for what in ("set the active version", "edit an assistant", "delete an assistant"):
            await toast_saying(pilot, f"Read-only mode: cannot {what} {reason}")
        assert app.screen is detail  # no form, no confirmation
    after = await client.assistants.get(created.assistant_id)
    assert (after.version, after.context) == (2, {"step": 2})


async def test_a_404_on_save_keeps_the_form_and_what_was_typed(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create("counter", {"step": 1}, unique("gone"))
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen))
        form = app.screen
        assert isinstance(form, AssistantFormScreen)
        await wait_for(pilot, lambda: form.schema_form is not None)
        form.query_one("#name", Input).value = "renamed"
        form.query_one(SchemaForm).query_one("#input-0", Input).value = "7"

        await client.assistants.delete(created.assistant_id)  # someone else deletes it
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.error is not None and "not found" in form.error.lower())
        assert form.is_current
        assert form.query_one("#name", Input).value == "renamed"
        assert form.query_one(SchemaForm).query_one("#input-0", Input).value == "7"
        assert created.assistant_id in (form.error or "")


def fake_server_answering_422() -> httpx.MockTransport:
    """Lists one counter assistant, serves its schema, and rejects every create."""
    assistant = {
        "assistant_id": "00000000-0000-4000-8000-000000000001",
        "graph_id": "counter",
        "name": "counter",
        "version": 1,
        "metadata": {"created_by": "system"},
    }
    schema = {
        "graph_id": "counter",
        "context_schema": {
            "type": "object",
            "properties": {"step": {"type": "integer", "default": 1}},
        },
    }
    detail = [
        {"loc": ["body", "context", "step"], "msg": "step is too large", "type": "value_error"},
        {"loc": ["body", "name"], "msg": "name is taken", "type": "value_error"},
    ]

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/assistants/search":
            first = json.loads(request.content).get("offset", 0) == 0
            return httpx.Response(200, json=[assistant] if first else [])
        if path.endswith("/schemas"):
            return httpx.Response(200, json=schema)
        if path == "/assistants" and request.method == "POST":
            return httpx.Response(422, json={"detail": detail})
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


async def test_a_422_lists_each_field_and_keeps_the_form(wait_for: WaitFor) -> None:
    client = AgentServerClient("http://agent.test", http_transport=fake_server_answering_422())
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen))
        form = app.screen
        assert isinstance(form, AssistantFormScreen)
        await wait_for(pilot, lambda: form.schema_form is not None)
        form.query_one("#name", Input).value = "mine"
        fields = form.query_one(SchemaForm)
        fields.query_one("#input-0", Input).value = "1000"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.error is not None and "step" in form.error)
        assert form.is_current and form.error is not None
        assert "context.step: step is too large" in form.error
        assert "name: name is taken" in form.error
        problem = str(fields.query_one("#field-0 .field-problem", Static).render())
        assert problem == "step is too large"
        assert fields.query_one("#input-0", Input).value == "1000"
        assert form.query_one("#name", Input).value == "mine"
    await client.aclose()


async def test_the_hostile_corpus_in_an_assistant_is_painted_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """Name, description, metadata and context holding `EVERYTHING` (escapes, controls,
    markup and markup shapes), of the graph whose node and schema are named so: the
    list and the detail paint them as typed, nothing a terminal acts on."""
    assistant = await hostile_assistant(client)
    app = AssistantsApp(client, graph_id=GRAPH)
    async with app.run_test(size=(240, 60)) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, assistant.assistant_id)
        await pilot.pause()
        drawn_inertly(app, f"{assistant.name[:6]} {MARKER}")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen))
        detail = app.screen
        assert isinstance(detail, AssistantDetailScreen)
        await wait_for(pilot, lambda: detail.active is not None)
        await pilot.pause()
        drawn_inertly(app, f"{assistant.name[:6]} {MARKER}", SHAPES, MARKUP)
        # A line break in the name (`shown\rhidden`) keeps the breadcrumb and the
        # summary's name line one line each, the rest of the name after it in view.
        painted = screen_text(app).splitlines()
        assert "shown hidden" in painted[0], painted[0]
        assert any(
            f"{assistant.name[:6]} {MARKER}" in row and "shown hidden" in row for row in painted[1:]
        )
        assert app.is_running
