"""A form's field with its label above and, under it, why its value is refused.

    with Vertical():
        yield LabelledField("Dataset name", Input(id="example-name"), name="name")
    ...
    show_field_problems(self, {"name": "use letters and digits"})

Each form used to write the same three widgets per field (a `Label`, the input, a hidden
error `Static`) and the same loop to fill the error lines; this is that block once. The
field's `name` is the key of its problem (what a form's `read_form` and a 422's
`field_of` call it).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Label, Static

from agent_tui.tui.widgets.text import server_text


class LabelledField(Vertical):
    """Label, input, and the line that says what is wrong with it (hidden when nothing)."""

    DEFAULT_CSS = """
    LabelledField { height: auto; }
    LabelledField > .field-error { color: $text-error; display: none; }
    LabelledField.-refused > .field-error { display: block; }
    """

    def __init__(
        self, label: str | Text, field: Widget, *, name: str, id: str | None = None
    ) -> None:
        super().__init__(name=name, id=id)
        self.label = label
        self.field = field
        self.problem: str | None = None  # what the error line says

    def compose(self) -> ComposeResult:
        # A label given as a string is text, never markup (a dataset's name is in some).
        yield Label(Text().append(self.label))
        yield self.field
        yield Static(classes="field-error")

    def show_problem(self, message: str | None) -> None:
        """Say `message` under the field (None hides the line)."""
        self.problem = message
        self.query_one(".field-error", Static).update(server_text(message or ""))
        self.set_class(message is not None, "-refused")


def show_field_problems(form: DOMNode, problems: Mapping[str, str]) -> None:
    """Each problem (field name → message) under its field in `form`; the other fields'
    error lines hidden."""
    for field in form.query(LabelledField):
        if field.name is not None:
            field.show_problem(problems.get(field.name))
