"""The chat prompt: a multi-line `TextArea` where `enter` sends.

Sending does not clear the prompt: the owner calls `accept()` once the run has
started (which records the text in the history and clears it), so a failed send keeps
the draft. `up` on the first row and `down` on the last row browse the history; the
draft being typed is kept and comes back when browsing down past the newest entry.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from agent_tui.tui.widgets.inert import TextArea
from agent_tui.tui.widgets.key_order import after_queued

PLACEHOLDER = "Message — enter sends, ctrl+j newline"


class PromptArea(TextArea):
    DEFAULT_CSS = """
    PromptArea { height: auto; min-height: 3; max-height: 10; }
    """

    # Priority: TextArea handles enter itself (inserting a newline) before ordinary
    # bindings are looked at.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send", priority=True, id="prompt.send"),
        Binding("ctrl+j,shift+enter", "newline", "Newline", priority=True, id="prompt.newline"),
    ]

    class Submitted(Message):
        """The user asked to send `text` (not empty, not only whitespace)."""

        def __init__(self, prompt_area: PromptArea, text: str) -> None:
            super().__init__()
            self.prompt_area = prompt_area
            self.text = text

        @property
        def control(self) -> PromptArea:
            return self.prompt_area

    def __init__(
        self,
        text: str = "",
        *,
        history: list[str] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            text,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=PLACEHOLDER,
            id=id,
            classes=classes,
        )
        self.input_history: list[str] = history if history is not None else []
        """What was sent, oldest first (`history` is TextArea's undo history)."""
        self._history_index: int | None = None  # None: editing the draft
        self._draft = ""

    # Priority bindings run in the app as the key arrives, while keys read in the
    # same burst (fast typing, a paste without bracketed paste, a laggy link) still
    # wait in this widget's queue: act after them, or they would be lost or misplaced.
    def action_submit(self) -> None:
        after_queued(self, self._submit)

    def action_newline(self) -> None:
        after_queued(self, self._newline)

    def _submit(self) -> None:
        text = self.text
        if text.strip():
            self.post_message(self.Submitted(self, text))

    def _newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def accept(self) -> None:
        """The text was sent: remember it and start a new draft."""
        text = self.text
        if text.strip() and (not self.input_history or self.input_history[-1] != text):
            self.input_history.append(text)
        self._history_index = None
        self._draft = ""
        self.clear()

    def action_cursor_up(self, select: bool = False) -> None:
        if (
            select
            or not self.input_history
            or not self.navigator.is_first_wrapped_line(self.cursor_location)
        ):
            super().action_cursor_up(select)
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.input_history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return
        self._show(self.input_history[self._history_index], at_end=False)

    def action_cursor_down(self, select: bool = False) -> None:
        if (
            select
            or self._history_index is None
            or not self.navigator.is_last_wrapped_line(self.cursor_location)
        ):
            super().action_cursor_down(select)
            return
        self._history_index += 1
        if self._history_index >= len(self.input_history):
            self._history_index = None
            self._show(self._draft, at_end=True)
        else:
            self._show(self.input_history[self._history_index], at_end=True)

    def _show(self, text: str, *, at_end: bool) -> None:
        # Browsing up leaves the cursor on the first row so the next `up` goes on
        # browsing; browsing down leaves it on the last row.
        self.load_text(text)
        self.move_cursor(self.document.end if at_end else (0, 0))
