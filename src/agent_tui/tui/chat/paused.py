"""The chat's paused bar: the run stopped at a breakpoint (`paused before tools`), and
what the keys do — `c` continue, `s` step, `e` edit the state then continue, `esc` stay
paused.

Shown above the prompt only while the thread waits at a breakpoint (an `interrupt()`
question has its own block in the transcript). It takes the focus when the run pauses,
so `c` and `s` act at once; it posts `Continue` / `Step` and the chat starts the run.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static


class PausedBar(Static, can_focus=True):
    DEFAULT_CSS = """
    PausedBar { height: auto; padding: 0 1; background: $warning 20%; display: none; }
    PausedBar.-paused { display: block; }
    PausedBar:focus { background: $warning 40%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "go_on", "Continue", id="chat.continue"),
        Binding("s", "step", "Step", id="chat.step"),
        Binding("e", "edit", "Edit, continue", id="chat.edit_continue"),
        Binding("escape", "stay", "Stay paused", id="chat.stay_paused"),
    ]

    class Continue(Message):
        """Run on with no input, with the same breakpoints."""

    class Step(Message):
        """Run on to just before the next node."""

    class Edit(Message):
        """Edit the paused state, then run on."""

    class Stay(Message):
        """Leave the run paused and go back to the prompt."""

    paused_text = ""

    def pause(self, text: str) -> None:
        self.paused_text = text
        line = Text("‖ ", style="bold")
        line.append(text, style="bold")
        line.append("   c continue · s step · e edit, continue · esc stay paused", style="dim")
        self.update(line)
        self.add_class("-paused")

    def clear(self) -> None:
        self.paused_text = ""
        self.remove_class("-paused")

    @property
    def paused(self) -> bool:
        return self.has_class("-paused")

    def action_go_on(self) -> None:
        self.post_message(self.Continue())

    def action_step(self) -> None:
        self.post_message(self.Step())

    def action_edit(self) -> None:
        self.post_message(self.Edit())

    def action_stay(self) -> None:
        self.post_message(self.Stay())
