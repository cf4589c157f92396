"""The Assistants screen against the real server: list, create, update, delete, graph."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.graph import AssistantGraphScreen
from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.widgets.breadcrumb import SEPARATOR, Breadcrumb
from agent_tui.tui.widgets.graph_view import GraphView
from tests.support.assistants import (
    SIZE,
    AssistantsApp,
    chat_by_c,
    chat_graph_listing,
    loaded,
    select,
    unique,
)
from tests.support.chat import ai_texts, ended, state_line
from tests.support.graph import boxes_styled, reversed_style
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor, screen_shown


async def test_the_table_lists_one_graphs_assistants_and_f_cycles_graphs(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("listed")
    created = await client.assistants.create("counter", {"step": 2}, name)
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        screen = app.assistants
        row = [cell.plain for cell in screen.table.get_row(created.assistant_id)]
        assert row[0] == name and row[1] == "counter" and row[2] == "1"
        assert row[3].startswith("just now") and row[4] == created.assistant_id[:8]
        assert {a.graph_id for a in screen.table.items} == {"counter"}
        assert {"chat", "counter", "loop"} <= set(screen.graphs)

        commands = {command.name: command for command in screen.palette_commands()}
        assert {"New assistant", "Draw the assistant's graph", "Assistants of graph loop"} <= set(
            commands
        )
        commands["Assistants of graph loop"].callback()
        await wait_for(pilot, lambda: screen.table.loaded_count > 0)
        assert {a.graph_id for a in screen.table.items} == {"loop"}
        commands["Assistants of graph counter"].callback()

        await pilot.press("f")  # the next graph after counter
        await wait_for(
            pilot, lambda: screen.graph_filter != "counter" and screen.table.loaded_count > 0
        )
        assert {a.graph_id for a in screen.table.items} == {screen.graph_filter}


async def open_form(
    pilot: Pilot[None], wait_for: WaitFor, app: AssistantsApp, key: str
) -> AssistantFormScreen:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen), what="the form")
    form = app.screen
    assert isinstance(form, AssistantFormScreen)
    await wait_for(pilot, lambda: form.schema_form is not None, what="the context fields")
    return form


async def test_create_from_the_schema_form_checks_fields_before_sending(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("made")
    app = AssistantsApp(client, graph_id="chat")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        form = await open_form(pilot, wait_for, app, "n")
        fields = form.schema_form
        assert fields is not None
        assert [spec.name for spec in fields.specs] == ["style", "shout", "token_delay_ms"]

        def hints() -> str:
            return " ".join(str(w.render()) for w in fields.query(".field-hint"))

        # The fields' rows are mounted a moment after the form has its schema.
        await wait_for(pilot, lambda: "default: 20" in hints(), what="the fields' hints")
        assert 'default: "plain"' in hints() and "default: 20" in hints()

        form.query_one("#name", Input).focus()
        await pilot.press(*name)
        delay = fields.query_one("#input-2", Input)
        delay.focus()
        await pilot.press("minus", "5")
        await pilot.press("ctrl+s")
        await pilot.pause()
        # Nothing was sent: the problem shows under the field, the form stays.
        assert app.screen is form
        assert "must be at least 0" in str(fields.query_one("#field-2 .field-problem").render())
        assert "Nothing was sent" in (form.error or "")
        assert not [
            a for a in await client.assistants.search(graph_id="chat", limit=1000) if a.name == name
        ]

        delay.value = "0"
        fields.query_one("#input-0", Select).value = 1  # pirate
        fields.query_one("#input-1", Select).value = 1  # shout: true
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.assistants.is_current, what="the form to close")
        created = [
            a for a in await client.assistants.search(graph_id="chat", limit=1000) if a.name == name
        ]
        assert [a.context for a in created] == [
            {"style": "pirate", "shout": True, "token_delay_ms": 0}
        ]
        await wait_for(
            pilot, lambda: app.assistants.table.get_item(created[0].assistant_id) is not None
        )
        assert app.assistants.table.selected_item is not None


async def test_update_lists_the_keys_the_new_version_drops_before_saving(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create(
        "counter", {"step": 10, "double": False}, unique("upd")
    )
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        form = await open_form(pilot, wait_for, app, "e")
        fields = form.schema_form
        assert fields is not None
        step, double = fields.query_one("#input-0", Input), fields.query_one("#input-1", Select)
        assert (step.value, double.value) == ("10", 0)  # pre-filled: 10, false

        step.value = "3"
        double.clear()  # not set: the new version will not have `double`
        await pilot.press("ctrl+s")
        await screen_shown(pilot, ConfirmScreen, what="the warning")
        question = str(app.screen.query_one("#confirm-question").render())
        assert "will not have double" in question

        await pilot.press("n")  # not now: the form keeps what was typed
        await wait_for(pilot, lambda: app.screen is form)
        assert "would drop: double" in (form.error or "")
        assert step.value == "3"
        assert (await client.assistants.get(created.assistant_id)).version == 1

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is app.assistants, what="the form to close")
        updated = await client.assistants.get(created.assistant_id)
        assert (updated.version, updated.context) == (2, {"step": 3})
        await toast_saying(pilot, "version 2")


async def test_delete_asks_first_then_removes_the_assistant(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    created = await client.assistants.create("counter", {"step": 2}, unique("del"))
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, created.assistant_id)
        await pilot.press("ctrl+d")
        await screen_shown(pilot, ConfirmScreen)
        assert created.name in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: app.assistants.table.get_item(created.assistant_id) is None,
            what="the row to go",
        )
        with pytest.raises(NotFound):
            await client.assistants.get(created.assistant_id)


async def test_v_draws_the_chat_graph_with_its_loop(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app = AssistantsApp(client, graph_id="chat")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        default = app.assistants.graphs["chat"]
        await select(pilot, wait_for, app, default)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantGraphScreen))
        screen = app.screen
        assert isinstance(screen, AssistantGraphScreen)
        await wait_for(pilot, lambda: screen.loaded, what="the graph")
        view = screen.query_one(GraphView)
        drawing = view.plain
        assert "│ agent │" in drawing and "│ tools │" in drawing and "(start)" in drawing
        assert "╎" in drawing and drawing.count("▼") == 6  # conditional routes, 6 edges
        shown = str(screen.query_one("#graph-drawing", Static).render())
        assert "│ agent │" in shown
        await pilot.press("z")  # zoomed out: each box just its name, narrower
        await wait_for(
            pilot, lambda: "│agent│" in str(screen.query_one("#graph-drawing", Static).render())
        )
        assert max(map(len, view.plain.splitlines())) < max(map(len, drawing.splitlines()))
        await pilot.press("t")  # the layers and edges as a list
        await wait_for(
            pilot, lambda: "Layers" in str(screen.query_one("#graph-drawing", Static).render())
        )
        assert "agent     ╌╌▶ tools" in view.plain
        assert "tools     ──▶ agent      ↺ loop" in view.plain
        await pilot.press("t")
        await wait_for(
            pilot, lambda: "│agent│" in str(screen.query_one("#graph-drawing", Static).render())
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.assistants)


async def test_the_real_app_opens_one_graphs_assistants_from_command_mode(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="connected")
        await pilot.press("colon")
        await pilot.press(*"assistants counter", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantsScreen), what="the screen")
        screen = app.screen
        assert isinstance(screen, AssistantsScreen)
        assert screen.graph_filter == "counter"
        await wait_for(pilot, lambda: screen.table.loaded_count > 0)
        assert {a.graph_id for a in screen.table.items} == {"counter"}


async def test_the_breadcrumb_names_the_assistant_only_while_its_detail_is_open(
    agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("crumb")
    created = await client.assistants.create("counter", {"step": 1}, name)
    app = AgentTuiApp(RemoteServer(agent_server_url))

    def crumb() -> str:
        return str(app.screen.query_one(Breadcrumb).render())

    async def open_detail() -> AssistantsScreen:
        assert await app.run_command(":assistants counter")
        await screen_shown(pilot, AssistantsScreen, what="the list")
        screen = app.screen
        assert isinstance(screen, AssistantsScreen)
        await wait_for(pilot, lambda: screen.table.get_item(created.assistant_id) is not None)
        assert screen.table.move_to(created.assistant_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen))
        await wait_for(pilot, lambda: f"assistant {name}" in crumb(), what="the breadcrumb")
        return screen

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="connected")
        await open_detail()
        # A jump closes the detail without `esc`: home must not name the assistant.
        assert await app.run_command(":info")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        assert f"{SEPARATOR}assistant " not in crumb()

        listing = await open_detail()
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is listing, what="back on the list")
        await wait_for(pilot, lambda: listing.table.get_item(created.assistant_id) is None)
        assert f"{SEPARATOR}assistant " not in crumb()


async def test_c_chats_with_the_highlighted_assistant_and_shift_c_copies_its_id(
    agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("chat-with")
    chosen = await client.assistants.create("chat", {"token_delay_ms": 0}, name)
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        listing = await chat_graph_listing(pilot, wait_for, app, chosen.assistant_id)

        await pilot.press("C")
        await toast_saying(pilot, f"Copied assistant id {chosen.assistant_id}")
        view, pane = await chat_by_c(pilot, wait_for, app)
        assert name in state_line(pane)  # the chat names the assistant it runs
        await pilot.press(*"hi there", "enter")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        assert ai_texts(pane) == ["You said: hi there"]
        # The run was this assistant's (the server drops `assistant_id` from a new
        # thread's metadata: docs/server-quirks.md).
        runs = await client.runs.list(view.thread_id)
        assert [run.assistant_id for run in runs] == [chosen.assistant_id]

        await pilot.press("escape")  # back on the list, which is where `c` was pressed
        await wait_for(pilot, lambda: app.screen is listing, what="the list again")


async def test_c_on_the_assistants_is_refused_read_only(
    agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    app = AssistantsApp(client, graph_id="chat", readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        await pilot.press("c")
        await toast_saying(pilot, "Read-only mode")
        assert app.screen is app.assistants


async def test_x_draws_a_subgraphs_nodes_inside_its_parent(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app = AssistantsApp(client, graph_id="nested")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, app.assistants.graphs["nested"])
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantGraphScreen))
        screen = app.screen
        assert isinstance(screen, AssistantGraphScreen)
        await wait_for(pilot, lambda: screen.loaded, what="the graph")
        drawing = screen.query_one("#graph-drawing", Static)
        assert "│ chat │" in str(drawing.render())
        assert "chat:agent" not in str(drawing.render())
        await pilot.press("x")
        await wait_for(pilot, lambda: "│ chat:agent │" in str(drawing.render()), what="xray")
        assert "(chat:start)" in str(drawing.render())
        await pilot.press("x")
        await wait_for(pilot, lambda: "│ chat │" in str(drawing.render()), what="collapsed")


async def open_nested_graph(
    pilot: Pilot[None], wait_for: WaitFor, app: AssistantsApp
) -> AssistantGraphScreen:
    await loaded(pilot, wait_for, app)
    await select(pilot, wait_for, app, app.assistants.graphs["nested"])
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(app.screen, AssistantGraphScreen))
    screen = app.screen
    assert isinstance(screen, AssistantGraphScreen)
    await wait_for(pilot, lambda: screen.loaded, what="the graph")
    return screen


async def test_the_cursor_picks_a_subgraph_and_e_expands_it_in_place_then_collapses_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app = AssistantsApp(client, graph_id="nested")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_nested_graph(pilot, wait_for, app)
        view = screen.query_one(GraphView)
        drawing = screen.query_one("#graph-drawing", Static)
        legend = screen.query_one("#graph-legend", Static)
        # The first box is under the cursor from the start (start and end are skipped).
        await wait_for(pilot, lambda: view.selected == "prepare", what="the cursor")
        await pilot.press("j", "k")  # the next box in reading order, and back
        assert view.selected == "prepare"
        await pilot.press("down")  # the box below it
        assert view.selected == "chat"
        # The box under the cursor is reversed, the others are not.
        assert boxes_styled(drawing, reversed_style) == ["│ chat │"]
        await pilot.press("e")
        await wait_for(pilot, lambda: "╭┈ chat ┈" in str(drawing.render()), what="chat framed")
        assert "│ chat:agent │" in str(drawing.render())
        await wait_for(pilot, lambda: "expanded: chat" in str(legend.render()))
        assert view.selected == "chat:agent"  # the cursor goes in: its first node
        await pilot.press("k")  # back to prepare, then down into the frame
        assert view.selected == "prepare"
        await pilot.press("down")
        assert view.selected == "chat:agent"
        await pilot.press("enter")  # on a node inside: the subgraph collapses again
        await wait_for(pilot, lambda: "│ chat │" in str(drawing.render()), what="collapsed")
        assert "chat:agent" not in str(drawing.render())
        assert "expanded" not in str(legend.render())
        assert view.selected == "chat"
        await pilot.press("up")
        assert view.selected == "prepare"
        await pilot.press("e")  # not a subgraph: nothing changes
        assert "│ chat │" in str(drawing.render())
        # A click on a box picks it, as on Studio's canvas; a click beside the boxes does not.
        chat = view.drawn.boxes["chat"]
        await pilot.click("#graph-drawing", offset=(chat.x + 1, chat.y + 1))
        assert view.selected == "chat"
        assert boxes_styled(drawing, reversed_style) == ["│ chat │"]
        await pilot.click("#graph-drawing", offset=(0, 0))  # beside (start)
        assert view.selected == "chat"
