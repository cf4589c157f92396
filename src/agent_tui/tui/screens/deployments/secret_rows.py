"""The secrets of a deployment form: name/value rows, values masked as typed.

A row made from an existing secret (`original=` its name) starts with an empty value:
the control plane's values are never shown, and an empty value keeps the secret
(`deployments.spec` decides what is sent). Each row has a remove button and a problem
line under it, for what the form's checks or the server's 422 say about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from agent_tui.deployments.spec import SecretRow
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.text import server_text


class SecretRowInputs(Vertical):
    """One secret: its name, its value (masked as typed), a remove button, a problem line."""

    DEFAULT_CSS = """
    SecretRowInputs { height: auto; }
    SecretRowInputs .secret-inputs { height: auto; }
    SecretRowInputs .secret-name { width: 1fr; }
    SecretRowInputs .secret-value { width: 2fr; }
    SecretRowInputs .secret-problem { height: auto; }
    """

    def __init__(self, name: str = "", *, original: str | None = None) -> None:
        super().__init__(classes="secret-row")
        self.initial_name = name
        self.original = original

    def compose(self) -> ComposeResult:
        kept = self.original is not None
        with Horizontal(classes="secret-inputs"):
            yield Input(self.initial_name, placeholder="NAME", classes="secret-name")
            yield Input(
                "",
                password=True,
                placeholder="unchanged (type to replace)" if kept else "value",
                classes="secret-value",
            )
            yield Button("Remove", classes="secret-remove")
        yield Static("", classes="field-problem secret-problem")

    def on_mount(self) -> None:
        self.show_problem("")

    @property
    def name_input(self) -> Input:
        return self.query_one(".secret-name", Input)

    @property
    def value_input(self) -> Input:
        return self.query_one(".secret-value", Input)

    def row(self) -> SecretRow:
        return SecretRow(self.name_input.value, self.value_input.value, self.original)

    def show_problem(self, message: str) -> None:
        problem = self.query_one(".secret-problem", Static)
        problem.update(server_text(message))
        problem.display = bool(message)


class SecretRows(Vertical):
    """The rows, in the order the form sends them; `add` one, Remove drops one."""

    DEFAULT_CSS = "SecretRows { height: auto; }"

    def __init__(self, kept_names: Iterable[str] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kept_names = list(kept_names)

    def compose(self) -> ComposeResult:
        for name in self.kept_names:
            yield SecretRowInputs(name, original=name)

    @property
    def rows(self) -> list[SecretRowInputs]:
        return list(self.query_children(SecretRowInputs).results(SecretRowInputs))

    def values(self) -> list[SecretRow]:
        return [row.row() for row in self.rows]

    async def add(self) -> SecretRowInputs:
        """A new empty row, focused on its name."""
        row = SecretRowInputs()
        await self.mount(row)
        row.name_input.focus()
        row.scroll_visible()
        return row

    @on(Button.Pressed, ".secret-remove")
    async def _remove(self, event: Button.Pressed) -> None:
        event.stop()
        row = next((a for a in event.button.ancestors if isinstance(a, SecretRowInputs)), None)
        if row is not None:
            await row.remove()

    def show_problems(self, messages: Sequence[str]) -> None:
        """`messages[i]` under the i-th row ("" clears it)."""
        for row, message in zip(self.rows, messages, strict=False):
            row.show_problem(message)
