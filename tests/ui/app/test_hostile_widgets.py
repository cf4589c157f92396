"""Every form, editor, picker and modal draws server text inertly (issue 21, item 1).

The data comes from the real agent server: the `hostile` test graph (its node and its
context schema named with escape sequences, C1 controls, NUL, bidi overrides and markup)
and an assistant, a store item, a thread and its state holding `EVERYTHING`. A deployment
comes as a control plane's body (the local control plane refuses such a path). Each test
opens the screen and reads what it paints, as the terminal would get it: no ESC, OSC,
CSI, C1, NUL or bidi control, markup shown as typed. What a form holds is still exactly
what the server sent (saving an untouched field sends it back; JSON reads back the same).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from textual import events
from textual.widgets import Input, Select, TextArea

from agent_tui.chat.breakpoints import ThreadBreakpoints
from agent_tui.client import AgentServerClient, ControlPlaneClient
from agent_tui.client.models.control_plane import Deployment
from agent_tui.deployments.spec import FIELD_CONFIG_PATH
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.chat.assistant_version_picker import VersionPickerScreen
from agent_tui.tui.chat.breakpoints_modal import BreakpointsScreen
from agent_tui.tui.chat.thread_inputs import AsNodeScreen
from agent_tui.tui.editor import TextEditorScreen
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.crons.form import CronFormScreen
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.store.item_form import ItemFormScreen
from tests.support.assistants import AssistantsApp, loaded, select
from tests.support.hostile_screens import (
    GRAPH,
    MARKUP,
    NODE_SHAPES,
    SHAPES,
    drawn_inertly,
    hostile_assistant,
)
from tests.support.hostile_text import EVERYTHING, MARKER, MARKUP_SHAPES
from tests.support.screen import screen_text, toast_saying
from tests.support.shell import ShellHarness
from tests.support.store import unique_root
from tests.support.thread_view import loaded as history_loaded
from tests.support.thread_view import view_app
from tests.support.waiting import WaitFor, screen_shown

LINK = "[link=file:///etc/passwd]x"  # the first markup shape, as typed
SIZE = (240, 60)  # wide: the hostile names are long, and the checks want them whole


def harness(client: AgentServerClient, screen: Any) -> ShellHarness:
    app = ShellHarness(screen)
    app.client = client
    return app


async def test_new_assistant_form_draws_the_schema_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    [default] = await client.assistants.search(graph_id=GRAPH, metadata={"created_by": "system"})
    form = AssistantFormScreen(client, graphs={GRAPH: default.assistant_id}, graph_id=GRAPH)
    app = harness(client, form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.schema_form is not None, what="the schema's fields")
        await pilot.pause()
        # The property's title and name (its label), its description (the hint), markup
        # and all, cleaned; the choice in the select.
        drawn_inertly(app, f"title-{MARKER}", f"about-{MARKER}", f"({MARKER}", SHAPES, MARKUP)
        choice = form.query(Select).last()
        choice.focus()
        await pilot.press("enter")  # the choices open
        await wait_for(pilot, lambda: choice.expanded, what="the choices")
        drawn_inertly(app, f"one-{MARKER}", SHAPES, MARKUP)


async def test_assistant_edit_form_draws_inertly_and_keeps_the_values(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await hostile_assistant(client)
    form = AssistantFormScreen(client, assistant=assistant)
    app = harness(client, form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.schema_form is not None, what="the schema's fields")
        await pilot.pause()
        drawn_inertly(app, f"Edit {assistant.name[:6]} {MARKER}")
        assert form.query_one("#name", Input).value == assistant.name
        assert form.query_one("#description", Input).value == assistant.description
        # JSON to edit writes controls out (\u001b); it reads back the same.
        metadata = form.query_one("#metadata", TextArea).text
        assert "\\u001b]0;pwned" in metadata and "\\u202e" in metadata
        assert json.loads(metadata) == assistant.metadata
        assert form.schema_form is not None
        held = assistant.context  # as the server keeps it (a NUL comes back as U+FFFD)
        [field] = [i for i in form.schema_form.query(Input) if i.value in held.values()]
        field.focus()
        await pilot.press("end")  # the cursor at the end: the value's far side in view
        drawn_inertly(app, SHAPES, MARKUP)


async def test_store_item_editor_draws_namespace_key_and_value_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    label = EVERYTHING.replace(".", "_").replace("\x00", "")  # a label holds neither
    namespace = (unique_root(), label)
    value = {EVERYTHING: EVERYTHING}
    await client.store.put_item(namespace, EVERYTHING, value)
    item = await client.store.get_item(namespace, EVERYTHING)
    form = ItemFormScreen(client, item=item)
    app = harness(client, form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.is_current, what="the item editor")
        await pilot.pause()
        painted = drawn_inertly(app, "\\u001b]0;pwned")  # the value's JSON, written out
        assert painted.count(MARKER) >= 4  # namespace, key and the value's key and value
        # As the server keeps them (a NUL comes back as U+FFFD), to be put back the same.
        assert form.query_one("#item-key", Input).value == item.key
        assert json.loads(form.query_one("#item-value", TextArea).text) == item.value


PATH = f"{MARKER}\x1b]0;pwned\x07\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\u202e\x9b\x00.json"
SHAPED = MARKER + "".join(MARKUP_SHAPES.values()) + EVERYTHING  # in view in a narrow column
DEPLOYMENT = {  # as a control plane's body: the local one refuses such a path
    "id": "00000000-0000-4000-8000-0000000000d1",
    "name": SHAPED,
    "source": "internal_source",
    "source_config": {"install_command": EVERYTHING},
    "source_revision_config": {"langgraph_config_path": PATH, "repo_ref": EVERYTHING},
    "secrets": [{"name": EVERYTHING, "value": ""}],
    "status": "READY",
    "active_revision_id": "r1",
    "latest_revision_id": "r1",
}
REVISION = {"id": "r1", "status": SHAPED, "source": "internal_source"}


def deployments_answer(request: httpx.Request) -> httpx.Response:
    """The control plane's answers: one hostile deployment and its one revision."""
    path = request.url.path
    if path == "/v2/deployments":
        return httpx.Response(200, json={"resources": [DEPLOYMENT], "offset": 0})
    if path.endswith("/revisions"):
        return httpx.Response(200, json={"resources": [REVISION], "offset": 0})
    if path.endswith("/r1"):
        return httpx.Response(200, json=REVISION)
    if path == f"/v2/deployments/{DEPLOYMENT['id']}":
        return httpx.Response(200, json=DEPLOYMENT)
    return httpx.Response(404, json={"detail": "no such thing"})


async def test_deployments_list_and_revisions_draw_inertly(wait_for: WaitFor) -> None:
    transport = httpx.MockTransport(deployments_answer)
    async with ControlPlaneClient("http://cp.test", http_transport=transport) as control_plane:
        listing = DeploymentsScreen(control_plane)
        app = ShellHarness(listing)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: listing.table.row_count == 1, what="the deployment")
            await pilot.pause()
            # Its name, and its latest revision's status, cut at their columns' widths.
            drawn_inertly(app, f"{MARKER}[link=file:///etc/passwd…", f"{MARKER}[link=fi…")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, DeploymentDetailScreen))
            detail = app.screen
            assert isinstance(detail, DeploymentDetailScreen)
            await wait_for(pilot, lambda: detail.table.row_count == 1, what="the revision")
            await pilot.pause()
            drawn_inertly(app, f"{MARKER}{LINK}")
            assert app.is_running


async def test_deployment_edit_form_draws_the_path_and_secrets_inertly(
    wait_for: WaitFor,
) -> None:
    path = PATH
    deployment = Deployment.model_validate(DEPLOYMENT)
    nowhere = httpx.MockTransport(lambda request: httpx.Response(500))
    async with ControlPlaneClient("http://cp.test", http_transport=nowhere) as control_plane:
        form = DeploymentFormScreen(control_plane, deployment)
        app = ShellHarness(form)
        await _show_deployment_form(app, form, wait_for, path)


async def _show_deployment_form(
    app: ShellHarness, form: DeploymentFormScreen, wait_for: WaitFor, path: str
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.is_current, what="the deployment form")
        await pilot.pause()
        painted = drawn_inertly(app, f"Edit deployment {MARKER}", SHAPES, MARKUP)
        assert painted.count(MARKER) >= 6  # title, name, path, hint, both JSON, the secret
        assert form.query_one(f"#{FIELD_CONFIG_PATH}", Input).value == path
        assert form.draft().config_path == path  # saved as the server has it


async def test_cron_form_draws_the_assistant_choice_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await hostile_assistant(client)
    form = CronFormScreen(client, assistant_id=assistant.assistant_id)
    app = harness(client, form)
    async with app.run_test(size=SIZE) as pilot:
        select: Select[str] = form.query_one("#assistant", Select)
        await wait_for(pilot, lambda: select.value == assistant.assistant_id, what="the choice")
        await pilot.pause()
        drawn_inertly(app, f"{assistant.name[:6]} {MARKER}", SHAPES, MARKUP)


async def test_f4_assistant_picker_versions_and_question_draw_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await hostile_assistant(client)
    picker = AssistantPickerScreen(client, current=assistant.assistant_id, thread_graph="counter")
    app = harness(client, picker)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(picker.assistants), what="the assistants")
        await pilot.pause()
        drawn_inertly(app, f"{assistant.name[:6]} {MARKER}")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, VersionPickerScreen))
        versions = app.screen
        assert isinstance(versions, VersionPickerScreen)
        await wait_for(pilot, lambda: bool(versions.versions), what="the versions")
        await pilot.pause()
        drawn_inertly(app, f"version of {assistant.name[:6]} {MARKER}")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is picker, what="the assistants again")
        await pilot.press("enter")  # another graph than the thread's: asks first
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.pause()
        drawn_inertly(app, LINK, MARKUP)  # wrapped: the shapes' start and the end


async def test_breakpoints_modal_draws_node_names_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await hostile_assistant(client)
    modal = BreakpointsScreen(client, assistant.assistant_id, ThreadBreakpoints())
    app = harness(client, modal)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(modal.nodes), what="the graph's nodes")
        await pilot.pause()
        drawn_inertly(app, f"node-{MARKER}", NODE_SHAPES)
        await pilot.press("b")  # says which node now pauses, by its name
        await pilot.pause()
        drawn_inertly(app, "pause before", f"node-{MARKER}")


async def test_fork_editor_and_node_choice_draw_inertly(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("VISUAL", "EDITOR"):  # the built-in editor, not the user's
        monkeypatch.delenv(variable, raising=False)
    thread = await client.threads.create(metadata={"graph_id": GRAPH})
    async with client.runs.stream(thread.thread_id, GRAPH, input={"note": EVERYTHING}) as run:
        async for _ in run:
            pass
    state = await client.threads.get_state(thread.thread_id)
    app, view = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: history_loaded(view), what="the thread's history")
        await pilot.click("#history")  # the history has the keys, not the chat's prompt
        await pilot.press("f")  # fork at the newest step: its state in the editor
        await screen_shown(pilot, TextEditorScreen, what="editor")
        await pilot.pause()
        # Lines wrap at the editor's width: the shapes' start on one line, the end on another.
        drawn_inertly(app, "\\u001b]0;pwned", "\\u202e", LINK, "[@click=app.quit]click[/]")
        area = app.screen.query_one(TextArea)
        assert json.loads(area.text) == state.values  # reads back as the server has it
        area.text = json.dumps({**state.values, "note": "changed"})
        await pilot.press("ctrl+s")  # a change: asks which node the fork writes as
        await screen_shown(pilot, AsNodeScreen, what="the nodes")
        await pilot.pause()
        node_link = LINK.replace(":", "")  # the node's name, cut at the choice's width
        drawn_inertly(app, f"node-{MARKER}", node_link)
        nodes = app.screen.query_one(Select)
        nodes.focus()
        await pilot.press("enter")  # the nodes open
        await wait_for(pilot, lambda: nodes.expanded, what="the nodes' list")
        drawn_inertly(app, f"node-{MARKER}", node_link)


# One line (a paste into an Input keeps its first line only), every kind of control.
PASTED = f"{MARKER}\x1b]0;pwned\x07\x9b31m\u202eevil\u202c\u200b\x00\x7f[@click=app.quit]click[/]"


async def test_pasted_text_is_kept_as_pasted_and_drawn_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    form = ItemFormScreen(client, namespace=(unique_root(),))
    app = harness(client, form)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: form.is_current, what="the new item form")
        key = form.query_one("#item-key", Input)
        value = form.query_one("#item-value", TextArea)
        value.clear()
        for widget in (key, value):
            widget.focus()
            app.post_message(events.Paste(PASTED))  # as the terminal sends a paste
            await pilot.pause()
        await wait_for(pilot, lambda: (key.value, value.text) == (PASTED, PASTED), what="paste")
        # Drawn one for one: ␛ for ESC, � for a C1 control, a bidi override, a zero width.
        painted = drawn_inertly(app, "␛]0;pwned␇�31m�evil��␀␡[@click=app.quit]click[/]")
        assert painted.count("␛]0;pwned") == 2  # the key and the value


async def test_an_untouched_edit_saves_what_the_server_had_and_its_toast_is_inert(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await hostile_assistant(client)
    app = AssistantsApp(client, graph_id=GRAPH)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        await select(pilot, wait_for, app, assistant.assistant_id)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen), what="form")
        form = app.screen
        assert isinstance(form, AssistantFormScreen)
        await wait_for(pilot, lambda: form.schema_form is not None, what="the schema's fields")
        await pilot.press("ctrl+s")
        # Saved: the form closes (a double run once saw no toast at all: this tells a
        # save that never happened from a toast that came and went unseen).
        await wait_for(
            pilot, lambda: app.screen is not form, what="the form saved and closed", workers=False
        )
        saved_toast = f"Saved {assistant.name[:6]} {MARKER}"
        await toast_saying(pilot, saved_toast)
        # The toast exists a moment before it is painted (a loaded machine shows the gap).
        await wait_for(
            pilot, lambda: saved_toast in screen_text(app), what="the toast painted", workers=False
        )
        drawn_inertly(app, saved_toast)
    saved = await client.assistants.get(assistant.assistant_id)
    assert saved.version == 2
    kept = ("name", "description", "metadata", "context")
    assert saved.model_dump(include=set(kept)) == assistant.model_dump(include=set(kept))


async def test_revision_log_view_draws_log_lines_and_status_inertly(wait_for: WaitFor) -> None:
    """A control plane's build log lines, level and revision status, hostile in each."""
    from agent_tui.tui.screens.deployments.revision_logs import RevisionLogsScreen

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/build_logs"):
            entries = [
                {"timestamp": 1_700_000_000_000 + n, "level": EVERYTHING, "message": EVERYTHING}
                for n in range(3)
            ]
            return httpx.Response(200, json={"logs": entries, "next_offset": None})
        return httpx.Response(
            200, json={"id": "r1", "status": EVERYTHING, "source": "internal_source"}
        )

    transport = httpx.MockTransport(answer)
    async with ControlPlaneClient("http://cp.test", http_transport=transport) as control_plane:
        view = RevisionLogsScreen(control_plane, "d1", "r1", follow=False)
        app = ShellHarness(view)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: len(view.lines) == 3, what="the log's lines")
            await pilot.pause()
            painted = drawn_inertly(app, SHAPES, MARKUP)
            assert painted.count(MARKER) >= 3  # every line
