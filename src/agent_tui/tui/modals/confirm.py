"""A yes/no question before something that cannot be undone (e.g. a delete).

    confirmed = await self.app.push_screen_wait(ConfirmScreen("Delete thread 1234?"))

or `self.app.push_screen(ConfirmScreen(...), callback)`. `y`/`enter` on "Yes" answer
True; `n`/`esc` answer False. The question is shown as inert text (it usually quotes a
server name). Focus starts on "No", so a stray enter does not delete.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text


class ConfirmScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: auto; min-width: 40; max-width: 90; height: auto;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ConfirmScreen #confirm-title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmScreen Button { margin-left: 2; }
    """
    # Screen's own bindings (with ids, from AgentScreen), then this modal's.
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n", "answer(False)", "No", id="confirm.no"),
        Binding("escape", "answer(False)", "Cancel", id="confirm.cancel"),
    ]

    def __init__(self, question: str, *, title: str = "Are you sure?", yes: str = "Delete") -> None:
        super().__init__()
        self.question = question
        self.heading = title
        self.yes_label = yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), id="confirm-title")
            yield Static(server_text(self.question), id="confirm-question")
            with Horizontal():
                yield Button("No", id="no")
                yield Button(server_text(self.yes_label), id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
