"""The interrupt block: what the graph asks (`interrupt(value)`) and a form to answer.

Submitting posts `InterruptBlock.Resume(item, value)`; the owner resumes the run with
`command: {"resume": value}` and reports `Updated(item)` with `answered=True`, which
replaces the form with the answer sent. The form takes the focus from the chat prompt
when it appears (the run waits for it). The answer is JSON when it parses as JSON (`{"approved": true}`,
`42`, `true`), else the text as a string (`yes`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from agent_tui.chat.item_text import compact_json
from agent_tui.chat.items import InterruptItem
from agent_tui.text.user_json import json_or_text
from agent_tui.tui.chat.blocks import ChatBlock, block_label
from agent_tui.tui.chat.prompt import PromptArea
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.json_view import json_syntax
from agent_tui.tui.widgets.text import server_text

RESUME_HINT = 'Text is sent as a string ("yes"); valid JSON as JSON ({"approved": true}).'


class InterruptBlock(ChatBlock):
    DEFAULT_CSS = """
    InterruptBlock { border: round $warning; padding: 0 1; }
    InterruptBlock > .interrupt-question { text-style: bold; color: $text-warning; }
    InterruptBlock > .resume-form { height: auto; }
    InterruptBlock > .resume-form > Input { width: 1fr; }
    InterruptBlock > .resume-form > Button { min-width: 10; }
    InterruptBlock > .resume-hint { color: $text-muted; }
    InterruptBlock.answered { border: round $panel; }
    """

    class Resume(Message):
        """The user answered the interrupt with `value`."""

        def __init__(self, item: InterruptItem, value: Any) -> None:
            super().__init__()
            self.item = item
            self.value = value

    KIND = "interrupt"

    item: InterruptItem

    @property
    def question(self) -> str | None:
        value = self.item.value
        if isinstance(value, dict) and isinstance(value.get("question"), str):
            return str(value["question"])
        return None

    def compose_item(self) -> ComposeResult:
        item = self.item
        answered = item.answered
        self.set_class(answered, "answered")
        state = "answered" if answered else "waiting for an answer"
        yield Static(
            block_label("interrupt", state, namespace=item.namespace), classes="block-label"
        )
        question = self.question
        if question is not None:
            yield Static(server_text(question), classes="interrupt-question")
        value = item.value
        body = server_text(value) if isinstance(value, str) else json_syntax(value)
        yield Static(body, classes="interrupt-value")
        if answered:
            # What was sent, when this app sent it; an older answer is not in the state.
            shown = Text("answered", style="dim")
            if item.answer_known:
                shown.append(": ")
                answer = item.answer
                text = answer if isinstance(answer, str) else compact_json(answer)
                shown.append_text(server_text(text, style="bold"))
            yield Static(shown, classes="resume-answer")
            return
        with Horizontal(classes="resume-form"):
            yield Input(placeholder="Answer (text or JSON)", classes="resume-input")
            yield Button("Resume", classes="resume-button", variant="warning")
        yield Static(Text(RESUME_HINT), classes="resume-hint")

    def on_mount(self) -> None:
        # The run waits for this answer: take the focus from the chat prompt (not from
        # whatever else the user went to meanwhile).
        focused = self.screen.focused
        if (
            not self.broken
            and not self.item.answered
            and (focused is None or isinstance(focused, PromptArea))
        ):
            self.answer_input.focus()

    @property
    def answer_input(self) -> Input:
        return self.query_one(".resume-input", Input)

    @on(Input.Submitted, ".resume-input")
    @on(Button.Pressed, ".resume-button")
    def _submit(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        if self.item.answered:
            return
        text = self.answer_input.value
        if not text.strip():
            self.notify("Type an answer to resume the run.", severity="warning", markup=False)
            return
        self.post_message(self.Resume(self.item, json_or_text(text)))
