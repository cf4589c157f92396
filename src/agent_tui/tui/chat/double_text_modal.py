"""Sending while a run is active: how (`chat/double_text.py` has the choices).

    how = await self.app.push_screen_wait(DoubleTextScreen(text))

answers a `DoubleText` ("queue", "enqueue", "interrupt", "rollback", "reject") or None
(esc: the message stays in the prompt). Each choice says what it does; its letter picks
it at once, and `enter` picks the highlighted one — "Queue here" first, so `enter` twice
still queues, as before.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.chat.double_text import CHOICES, DoubleText, DoubleTextChoice
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text

PREVIEW = 120  # characters of the message shown in the heading


class DoubleTextScreen(ModalScreen[DoubleText | None]):
    DEFAULT_CSS = """
    DoubleTextScreen { align: center middle; }
    DoubleTextScreen > Vertical {
        width: 90; max-width: 95%; height: auto;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    DoubleTextScreen #double-text-title { text-style: bold; }
    DoubleTextScreen #double-text-message { color: $text-muted; margin-bottom: 1; }
    DoubleTextScreen OptionList { height: auto; max-height: 20; }
    DoubleTextScreen #double-text-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        *(
            Binding(c.key, f"choose('{c.how}')", c.label, id=f"double_text.{c.how}")
            for c in CHOICES
        ),
        Binding("escape", "dismiss(None)", "Keep typing", id="double_text.cancel"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "A run is active on this thread. Send this message how?", id="double-text-title"
            )
            preview = " ".join(self.text.split())
            if len(preview) > PREVIEW:
                preview = preview[: PREVIEW - 1] + "…"
            yield Static(server_text(preview), id="double-text-message")
            yield OptionList(*(_option(choice) for choice in CHOICES), id="double-text-choices")
            yield Static(
                "letter or enter picks · esc keeps the message in the prompt",
                id="double-text-hint",
            )

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        choices.highlighted = 0
        choices.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(str(event.option.id))

    def action_choose(self, how: str) -> None:
        chosen = next(choice.how for choice in CHOICES if choice.how == how)
        self.dismiss(chosen)


def _option(choice: DoubleTextChoice) -> Option:
    prompt = Text.assemble((f"{choice.key}  ", "bold"), (choice.label, "bold"), "\n   ")
    prompt.append(choice.does, style="dim")
    return Option(prompt, id=choice.how)
