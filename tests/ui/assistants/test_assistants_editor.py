"""Raw JSON editing of an assistant: `$EDITOR` when set, else the in-app editor."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from agent_tui.client import AgentServerClient
from agent_tui.tui.editor import TextEditorScreen, editor_command, run_editor
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.schema_form import SchemaForm
from tests.support.assistants import SIZE, AssistantsApp, loaded, unique
from tests.support.waiting import WaitFor, screen_shown


async def new_assistant_form(
    pilot: Pilot[Any], wait_for: WaitFor, app: AssistantsApp
) -> AssistantFormScreen:
    """`n` on the assistants list: the form, its context fields loaded."""
    await loaded(pilot, wait_for, app)
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, AssistantFormScreen))
    form = app.screen
    assert isinstance(form, AssistantFormScreen)
    await wait_for(pilot, lambda: form.schema_form is not None)
    return form


def test_the_editor_command_comes_from_visual_then_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    assert editor_command() is None
    monkeypatch.setenv("EDITOR", "code --wait")
    assert editor_command() == ["code", "--wait"]
    monkeypatch.setenv("VISUAL", "vim")
    assert editor_command() == ["vim"]


def test_run_editor_returns_what_the_editor_wrote(tmp_path: Path) -> None:
    script = tmp_path / "editor.py"
    script.write_text(
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "data = json.load(open(path))\n"
        "data['context']['step'] = 42\n"
        "json.dump(data, open(path, 'w'))\n"
    )
    edited = run_editor([sys.executable, str(script)], json.dumps({"context": {"step": 1}}))
    assert edited is not None and json.loads(edited) == {"context": {"step": 42}}
    assert run_editor([sys.executable, "-c", "raise SystemExit(3)"], "{}") is None
    assert run_editor([str(tmp_path / "no-such-editor")], "{}") is None


async def test_ctrl_e_edits_the_assistant_as_json_and_fills_the_form(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    name = unique("raw")
    app = AssistantsApp(client, graph_id="chat")
    async with app.run_test(size=SIZE) as pilot:
        form = await new_assistant_form(pilot, wait_for, app)

        await pilot.press("ctrl+e")
        await screen_shown(pilot, TextEditorScreen, what="the editor")
        area = app.screen.query_one(TextArea)
        body = json.loads(area.text)
        assert body["graph_id"] == "chat" and body["context"] == {}
        # A typo first: nothing is applied, and the next ctrl+e starts from it.
        area.text = '{"name": "oops",'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is form)
        assert "The JSON was not applied" in (form.error or "")
        await pilot.press("ctrl+e")
        await screen_shown(pilot, TextEditorScreen)
        area = app.screen.query_one(TextArea)
        assert area.text == '{"name": "oops",'
        area.text = json.dumps(
            {
                "graph_id": "chat",
                "name": name,
                "metadata": {"team": "raw"},
                "context": {"style": "pirate", "token_delay_ms": 5, "extra": [1]},
            }
        )
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is form)
        fields = form.query_one(SchemaForm)
        assert form.query_one("#name", Input).value == name
        assert fields.query_one("#input-0", Select).value == 1  # pirate
        assert fields.query_one("#input-2", Input).value == "5"
        assert json.loads(fields.query_one("#input-other", TextArea).text) == {"extra": [1]}

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is app.assistants, what="the form to close")
    made = [
        a for a in await client.assistants.search(graph_id="chat", limit=1000) if a.name == name
    ]
    assert [(a.context, a.metadata) for a in made] == [
        ({"style": "pirate", "token_delay_ms": 5, "extra": [1]}, {"team": "raw"})
    ]


async def test_what_the_json_editor_cannot_put_in_a_field_is_said_and_kept(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = AssistantsApp(client, graph_id="chat")
    async with app.run_test(size=SIZE) as pilot:
        form = await new_assistant_form(pilot, wait_for, app)
        fields = form.query_one(SchemaForm)

        # Invalid JSON typed in "Other keys": ctrl+e says so and leaves the text alone.
        other = fields.query_one("#input-other", TextArea)
        other.text = '{"half": '
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: "Other keys" in (form.error or ""), what="the refusal")
        assert form.is_current
        assert other.text == '{"half": '
        other.text = ""

        # A value outside the enum: said under its field and in the form, kept in Other keys.
        await pilot.press("ctrl+e")
        await screen_shown(pilot, TextEditorScreen, what="the editor")
        app.screen.query_one(TextArea).text = json.dumps(
            {"graph_id": "chat", "context": {"style": "shouting", "token_delay_ms": 5}}
        )
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.is_current)
        assert "style" in (form.error or "") and '"shouting"' in (form.error or "")
        problem = fields.query_one("#field-0 .field-problem").render()
        assert '"shouting" is not a choice' in str(problem)
        assert fields.query_one("#input-0", Select).value is Select.NULL
        assert json.loads(other.text) == {"style": "shouting"}
        assert fields.query_one("#input-2", Input).value == "5"


async def test_ctrl_s_read_in_one_burst_with_typing_keeps_every_typed_character(
    wait_for: WaitFor,
) -> None:
    # Keys read together reach the app before the editor inserts them; ctrl+s (a
    # priority key) must still keep the text with its last characters.
    kept: list[str | None] = []

    class EditorApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(TextEditorScreen('{"a": 1'), kept.append)

    app = EditorApp()
    async with app.run_test() as pilot:
        await screen_shown(pilot, TextEditorScreen)
        area = app.screen.query_one(TextArea)
        area.move_cursor(area.document.end)
        for key in ["}", "ctrl+s"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await wait_for(pilot, lambda: kept == ['{"a": 1}'], what="the whole text kept")


async def test_json_for_another_graph_keeps_a_value_its_fields_cannot_show(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Switching graphs from the JSON editor builds the other graph's fields from the
    # JSON: a value outside that graph's enum must be said and kept, as on one graph.
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = AssistantsApp(client, graph_id="chat")
    async with app.run_test(size=SIZE) as pilot:
        form = await new_assistant_form(pilot, wait_for, app)

        await pilot.press("ctrl+e")
        await screen_shown(pilot, TextEditorScreen, what="the editor")
        app.screen.query_one(TextArea).text = json.dumps(
            {"graph_id": "ticker", "context": {"then": "explode", "ticks": 2}}
        )
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is form)
        await wait_for(
            pilot,
            # (not only "then": the note after applying the JSON says "… then ctrl+s")
            lambda: form.graph_id == "ticker" and "is not a choice" in (form.error or ""),
            what="the ticker fields and the word on what did not fit",
        )
        assert '"explode" is not a choice' in (form.error or "")
        fields = form.query_one(SchemaForm)
        then = next(i for i, spec in enumerate(fields.specs) if spec.name == "then")
        problem = fields.query_one(f"#field-{then} .field-problem").render()
        assert '"explode" is not a choice' in str(problem)
        other = json.loads(fields.query_one("#input-other", TextArea).text)
        assert other["then"] == "explode"
