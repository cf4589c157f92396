"""`n` on the Datasets screen (a new dataset with its first example) or on a dataset's
examples (one more): an example typed in — the input as a message (or, starting with
`{`, a JSON object of the graph's input keys), the reference answer (text, or a JSON
object; empty: none) and optional metadata (a JSON object). Checked before it is saved,
the reason under its field, everything typed kept. Dismisses with the example saved."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from agent_tui.datasets.model import DatasetError, Example, check_name
from agent_tui.datasets.store import DatasetStore
from agent_tui.text.user_json import JsonTextError, parse_json_object
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input, TextArea
from agent_tui.tui.widgets.labelled_field import LabelledField, show_field_problems
from agent_tui.tui.widgets.text import server_text


class ExampleFormScreen(SavingForm[tuple[str, Example], Example]):
    DEFAULT_CSS = """
    ExampleFormScreen { align: center middle; }
    ExampleFormScreen > Vertical {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ExampleFormScreen .title { text-style: bold; }
    ExampleFormScreen TextArea { height: 6; }
    ExampleFormScreen #example-error { color: $text-error; display: none; }
    ExampleFormScreen .buttons { height: auto; align-horizontal: right; }
    ExampleFormScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="example_form.cancel"),
        Binding("ctrl+s", "save", "Save", id="example_form.save"),
    ]
    SAVE_GROUP = "example-form-save"
    ERROR_LINE = "#example-error"
    doing = "save the example"

    def __init__(self, store: DatasetStore, dataset: str | None = None) -> None:
        """`dataset`: add to it; None: the form asks the name of a new dataset."""
        super().__init__()
        self.store = store
        self.dataset = dataset

    def compose(self) -> ComposeResult:
        with Vertical():
            title = f"New example in {self.dataset}" if self.dataset else "New dataset"
            yield Static(server_text(title), classes="title")
            yield LabelledField(
                "Dataset name",
                Input(id="example-name", placeholder="qa"),
                name="name",
                id="example-name-field",
            )
            yield LabelledField(
                "Input: a message, or a JSON object of the graph's input keys",
                TextArea(id="example-input", soft_wrap=True),
                name="input",
            )
            yield LabelledField(
                "Reference answer (text or a JSON object; empty: none)",
                Input(id="example-reference"),
                name="reference",
            )
            yield LabelledField(
                "Metadata (a JSON object; optional)",
                Input(id="example-metadata", placeholder='{"topic": "cities"}'),
                name="metadata",
            )
            yield Static(id="example-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#example-name-field").display = self.dataset is None
        self.query_one("#example-input" if self.dataset else "#example-name").focus()

    def show_problems(self, problems: dict[str, str]) -> None:
        show_field_problems(self, problems)

    def focus_field(self, field: str) -> None:
        super().focus_field(f"example-{field}")

    def read_form(self) -> tuple[str, Example] | None:
        problems: dict[str, str] = {}
        name = self.dataset or self.query_one("#example-name", Input).value.strip()
        try:
            check_name(name)
        except DatasetError as error:
            problems["name"] = str(error)
        typed = self.query_one("#example-input", TextArea).text.strip()
        inputs: dict[str, Any] = {}
        if not typed:
            problems["input"] = "type the input"
        elif typed.startswith("{"):
            try:
                inputs = parse_json_object(typed, "the input")
            except JsonTextError as error:
                problems["input"] = str(error)
        else:
            inputs = {"messages": [{"role": "user", "content": typed}]}
        outputs: dict[str, Any] | None = None
        reference = self.query_one("#example-reference", Input).value.strip()
        if reference.startswith("{"):
            try:
                outputs = parse_json_object(reference, "the reference")
            except JsonTextError as error:
                problems["reference"] = str(error)
        elif reference:
            outputs = {"answer": reference}
        metadata: dict[str, Any] = {}
        written = self.query_one("#example-metadata", Input).value.strip()
        if written:
            try:
                metadata = parse_json_object(written, "the metadata")
            except JsonTextError as error:
                problems["metadata"] = str(error)
        self.show_problems(problems)
        if problems:
            self.mark_refused(problems)
            return None
        return name, Example(inputs, outputs, metadata)

    async def send(self, body: tuple[str, Example]) -> Example:
        name, example = body
        try:
            await asyncio.to_thread(self.store.add_examples, name, [example])
        except (DatasetError, OSError) as error:
            raise NotSaved(str(error)) from None
        return example

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
