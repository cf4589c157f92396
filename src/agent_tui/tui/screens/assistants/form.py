"""Create an assistant, or update one (a new version), from a form built from the graph's
context schema — or from its raw JSON, edited in `$EDITOR` (`ctrl+e`).

- Every field is checked before anything is sent; each problem shows under its field.
- An update replaces the whole context (nothing is merged), so before saving the form
  lists the keys the new version drops and asks first.
- On a server error the form stays open with everything typed still there, the
  server's message under the fields, and a 422's field errors under their fields.

Dismisses with the created/updated `Assistant`, or None on cancel.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Label, Static

from agent_tui.assistants.schema_fields import FieldProblem, fields_from_schema, parse_json_object
from agent_tui.client import AgentServerClient, ApiError, ValidationFailed
from agent_tui.client.error_text import describe_error, nothing_sent
from agent_tui.client.form_errors import body_loc
from agent_tui.client.models import Assistant
from agent_tui.text.context_diff import dropped_keys
from agent_tui.text.user_json import parse_json
from agent_tui.tui.agent_screen import refuse_if_readonly
from agent_tui.tui.editor import edit_text
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.saving_form import SavingForm
from agent_tui.tui.screens.assistants.schema_form import OTHER_KEYS, FormInvalid, SchemaForm
from agent_tui.tui.widgets.inert import Input, Select, TextArea, editable_json
from agent_tui.tui.widgets.text import server_text


class AssistantFormScreen(SavingForm[dict[str, Any], Assistant]):
    DEFAULT_CSS = """
    AssistantFormScreen { align: center middle; }
    AssistantFormScreen > Vertical {
        width: 90%; max-width: 120; height: 95%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    AssistantFormScreen #form-title { text-style: bold; padding: 0 1; background: $primary 30%; }
    AssistantFormScreen #form-body { height: 1fr; padding: 0 1; }
    AssistantFormScreen .section { text-style: bold underline; margin-top: 1; }
    AssistantFormScreen Label { margin-top: 1; }
    AssistantFormScreen #metadata { height: 5; }
    AssistantFormScreen #schema-status { color: $text-muted; }
    AssistantFormScreen #context-fields { height: auto; }
    AssistantFormScreen #form-error { color: $text-error; height: auto; max-height: 10; }
    AssistantFormScreen .buttons { height: auto; align-horizontal: right; }
    AssistantFormScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="assistant_form.cancel"),
        Binding("ctrl+s", "save", "Save", priority=True, id="assistant_form.save"),
        Binding("ctrl+e", "raw_json", "Edit as JSON", priority=True, id="assistant_form.raw"),
    ]
    SAVE_GROUP = "assistant-save"

    def __init__(
        self,
        client: AgentServerClient,
        *,
        graphs: Mapping[str, str] | None = None,
        graph_id: str | None = None,
        assistant: Assistant | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        """Create mode: `graphs` maps each graph id to an assistant id of that graph (to
        read its schema). Update mode: `assistant`, with `context` the active version's
        (the assistant's own by default)."""
        super().__init__()
        self.client = client
        self.assistant = assistant
        self.graphs = dict(graphs or {})
        if assistant is not None:
            self.graphs.setdefault(assistant.graph_id, assistant.assistant_id)
            graph_id = assistant.graph_id
        self.graph_id = graph_id or next(iter(sorted(self.graphs)), "")
        self.base_context: dict[str, Any] = dict(
            context if context is not None else (assistant.context if assistant else {})
        )
        self._raw_text: str | None = None  # raw JSON that did not parse, kept for retry

    @property
    def updating(self) -> bool:
        return self.assistant is not None

    def compose(self) -> ComposeResult:
        assistant = self.assistant
        with Vertical():
            if assistant is None:
                yield Static("New assistant", id="form-title")
            else:
                title = server_text(f"Edit {assistant.name or assistant.assistant_id}")
                title.append(f" — saving makes version {(assistant.version or 0) + 1}")
                yield Static(title, id="form-title")
            with VerticalScroll(id="form-body"):
                yield Label("Name")
                yield Input(assistant.name if assistant else "", placeholder="name", id="name")
                yield Label("Graph")
                if assistant is None:
                    options = [(server_text(g), g) for g in sorted(self.graphs)]
                    yield Select(
                        options,
                        allow_blank=False,
                        value=self.graph_id if self.graph_id in self.graphs else Select.NULL,
                        id="graph",
                    )
                else:
                    yield Static(server_text(assistant.graph_id), id="graph-name")
                yield Label("Description")
                yield Input((assistant.description or "") if assistant else "", id="description")
                yield Static("Context", classes="section")
                yield Static("Loading the graph's context schema…", id="schema-status")
                yield Vertical(id="context-fields")
                yield Label("Metadata (JSON object)")
                metadata = assistant.metadata if assistant else {}
                yield TextArea(json.dumps(metadata, indent=2) if metadata else "", id="metadata")
                yield Static("", classes="field-problem", id="metadata-problem")
            yield Static(id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Edit as JSON (ctrl+e)", id="raw")
                yield Button("Save (ctrl+s)", id="save", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.show_error(None)
        self._show_metadata_problem("")
        self.query_one("#name", Input).focus()
        self._load_schema(self.graph_id, self.base_context)

    # -- the context fields -------------------------------------------------------------

    @property
    def schema_form(self) -> SchemaForm | None:
        found = self.query(SchemaForm)
        return found.first() if found else None

    @on(Select.Changed, "#graph")
    def _graph_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.graph_id:
            self.graph_id = event.value
            self._load_schema(event.value, {})

    @work(exclusive=True, group="assistant-schema", exit_on_error=False)
    async def _load_schema(self, graph_id: str, context: Mapping[str, Any]) -> None:
        status = self.query_one("#schema-status", Static)
        holder = self.query_one("#context-fields", Vertical)
        await holder.remove_children()
        source = self.graphs.get(graph_id)
        schema: dict[str, Any] | None = None
        if source is None:
            status.update(server_text(f"No assistant of graph {graph_id!r} to read a schema from."))
        else:
            status.update("Loading the graph's context schema…")
            try:
                schema = (await self.client.assistants.get_schemas(source)).context_schema
            except ApiError as error:
                title, body = describe_error(error, "read the graph's context schema")
                status.update(server_text(f"{title}\n{body}\nWrite the context as JSON below."))
            else:
                status.update(
                    server_text(
                        f"From graph {graph_id}'s context schema. Empty fields are not sent."
                    )
                    if schema
                    else server_text(f"Graph {graph_id} publishes no context schema.")
                )
        form = SchemaForm(fields_from_schema(schema), context, id="schema-form")
        await holder.mount(form)
        if form.not_taken:  # e.g. JSON written for another graph, whose enum lacks a value
            said = "; ".join(f"{name}: {why}" for name, why in form.not_taken.items())
            self.show_error(f"Not all of the context fits the fields: {said}.")

    # -- saving -------------------------------------------------------------------------

    @property
    def doing(self) -> str:
        return "update the assistant" if self.updating else "create the assistant"

    def _show_metadata_problem(self, message: str) -> None:
        widget = self.query_one("#metadata-problem", Static)
        widget.update(server_text(message))
        widget.display = bool(message)

    def read_form(self) -> dict[str, Any] | None:
        """The request body from the fields, or None after showing what is wrong (or
        while asking whether to drop keys: the answer sends it)."""
        what = "update an assistant" if self.updating else "create an assistant"
        if refuse_if_readonly(self.app, what):
            return None
        form = self.schema_form
        if form is None:
            self.show_error("The context fields are still loading.")
            return None
        problems = 0
        try:
            metadata = parse_json_object(self.query_one("#metadata", TextArea).text, "metadata")
        except FieldProblem as problem:
            self._show_metadata_problem(str(problem))
            problems += 1
            metadata = {}
        else:
            self._show_metadata_problem("")
        try:
            context = form.collect()
        except FormInvalid as invalid:
            problems += len(invalid.problems)
            context = {}
            widget = form.first_invalid()
            if widget is not None:
                widget.focus()
        if problems:
            self.show_error(nothing_sent(problems))
            return None
        name = self.query_one("#name", Input).value.strip()
        description = self.query_one("#description", Input).value
        body = {
            "graph_id": self.graph_id,
            "name": name or None,
            # An update sends "" too, so clearing the description clears it.
            "description": description if description or self.updating else None,
            "metadata": metadata,
            "context": context,
        }
        dropped = dropped_keys(self.base_context, context) if self.updating else []
        if dropped:
            self._confirm_dropped(body, dropped)
            return None
        return body

    def _confirm_dropped(self, body: dict[str, Any], dropped: list[str]) -> None:
        question = (
            "An update replaces the whole context: the new version will not have "
            f"{', '.join(dropped)}.\n\nSave it without "
            f"{'this key' if len(dropped) == 1 else 'these keys'}?"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.send_now(body)
            else:
                self.show_error(f"Not saved. The new version would drop: {', '.join(dropped)}.")

        self.app.push_screen(
            ConfirmScreen(question, title="The new version drops keys", yes="Save"), answered
        )

    async def send(self, body: dict[str, Any]) -> Assistant:
        if self.assistant is None:
            return await self.client.assistants.create(
                body["graph_id"],
                body["context"],
                body["name"],
                body["metadata"] or None,
                description=body["description"],
            )
        return await self.client.assistants.update(
            self.assistant.assistant_id,
            body["context"],
            name=body["name"],
            description=body["description"],
            metadata=body["metadata"],
        )

    def show_server_error(self, error: ApiError) -> None:
        # The server's words whole (a context key may have no field to show it under),
        # and each refused context key and the metadata marked too.
        self.show_error(self.describe(error))
        if isinstance(error, ValidationFailed) and self.schema_form is not None:
            fields: dict[str, str] = {}
            for field in error.errors:
                loc = body_loc(field.loc)
                if loc[:1] == ["context"] and len(loc) > 1:
                    fields[loc[1]] = field.msg
                elif loc[:1] == ["metadata"]:
                    self._show_metadata_problem(field.msg)
            self.schema_form.show_problems(fields)

    # -- raw JSON -----------------------------------------------------------------------

    @on(Button.Pressed, "#raw")
    def action_raw_json(self) -> None:
        self._edit_raw()

    def _current_body(self) -> dict[str, Any]:
        """What the fields hold, as far as it parses (for the raw editor)."""
        form = self.schema_form
        context: dict[str, Any] = dict(self.base_context)
        if form is not None:
            context, _problems = form.gather()
        try:
            metadata = parse_json_object(self.query_one("#metadata", TextArea).text)
        except FieldProblem:
            metadata = {}
        body: dict[str, Any] = {
            "name": self.query_one("#name", Input).value,
            "description": self.query_one("#description", Input).value,
            "metadata": metadata,
            "context": context,
        }
        if not self.updating:
            body = {"graph_id": self.graph_id, **body}
        return body

    @work(exclusive=True, group="assistant-raw", exit_on_error=False)
    async def _edit_raw(self) -> None:
        form = self.schema_form
        if not self._raw_text and form is not None:
            _context, problems = form.gather()
            if problems:
                # What does not parse cannot go into the JSON, and applying the JSON
                # would overwrite it: the user fixes it first, nothing is lost.
                form.show_problems(problems)
                said = "; ".join(
                    f"{'Other keys' if name == OTHER_KEYS else name}: {why}"
                    for name, why in problems.items()
                )
                self.show_error(f"Not opened as JSON, fix first (it would be lost): {said}")
                return
        start = self._raw_text or editable_json(self._current_body())
        text = await edit_text(self.app, start, title="The assistant as JSON")
        if text is None:
            return
        try:
            data = parse_json(text)
            if not isinstance(data, dict):
                raise ValueError("the JSON must be an object")
            context = data.get("context", {})
            metadata = data.get("metadata", {})
            if not isinstance(context, dict) or not isinstance(metadata, dict):
                raise ValueError('"context" and "metadata" must be JSON objects')
        except ValueError as error:
            self._raw_text = text  # the next ctrl+e starts from what was written
            self.show_error(f"The JSON was not applied: {error}. Press ctrl+e to fix it.")
            return
        self._raw_text = None
        await self._apply(data, context, metadata)

    async def _apply(
        self, data: Mapping[str, Any], context: dict[str, Any], metadata: dict[str, Any]
    ) -> None:
        self.query_one("#name", Input).value = str(data.get("name") or "")
        self.query_one("#description", Input).value = str(data.get("description") or "")
        self.query_one("#metadata", TextArea).text = (
            json.dumps(metadata, indent=2) if metadata else ""
        )
        graph_id = data.get("graph_id")
        if not self.updating and isinstance(graph_id, str) and graph_id != self.graph_id:
            if graph_id in self.graphs:
                self.graph_id = graph_id
                self.query_one("#graph", Select).value = graph_id
                self._load_schema(graph_id, context)
                self.show_error("Applied the JSON: check the fields, then ctrl+s to save.")
                return
            self.show_error(f"Unknown graph {graph_id!r}: kept {self.graph_id!r}.")
        form = self.schema_form
        not_taken = form.fill(context) if form is not None else {}
        if not_taken:
            said = "; ".join(f"{name}: {why}" for name, why in not_taken.items())
            self.show_error(f"Applied the JSON, but not all of it fits the fields: {said}.")
        elif graph_id is None or graph_id == self.graph_id or self.updating:
            self.show_error("Applied the JSON: check the fields, then ctrl+s to save.")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
