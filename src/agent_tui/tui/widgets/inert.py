"""Textual's editing widgets, drawing what they hold as inert text: every module of the
UI takes `Input`, `TextArea` and `Select` from here, never from `textual.widgets`
(`tests/unit/test_inert_widgets.py` checks it).

A form opens with what the server holds (a deployment's langgraph.json path, an
assistant's name, a store key) and the user may paste anything. Textual draws an
`Input`'s value and a `TextArea`'s lines as they are, so an ESC, a C1 control or a bidi
override in them would reach the terminal and act (set its title, write the clipboard,
clear the screen). Here the value stays exactly what it is (saving an untouched field
sends back what the server had; what the user typed is kept), and only what is drawn
changes: each control character shows as a visible stand-in (`shown_controls`: `␛` for
ESC, `�` for C1 controls, bidi overrides and invisible characters), one for one, so the
cursor still lands where the value's characters are.

JSON to edit (`editable_json`) is written with those characters as `\\uXXXX` escapes, so
an editor shows which character a value holds and the value read back is the same.

`Select` takes its options' prompts as inert text: a `str` prompt is cleaned
(`clean_text`) and never parsed as markup (Textual would read `[@click=app.quit]` in a
str prompt as a live action), and a `Text` prompt holding controls is cleaned too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual import widgets

from agent_tui.text.escaping import exact_json
from agent_tui.text.sanitize import INVISIBLE, clean_text

SelectType = TypeVar("SelectType")

# What `clean_text` would drop, but one for one (newline and tab included: an Input is
# one line, and a TextArea's lines never hold a newline; it keeps its tabs itself).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + "]")
_CONTROL_BUT_TAB = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + "]"
)
_DEL = "\u2421"  # ␡
_OTHER = "\ufffd"  # �: C1 controls, bidi overrides and isolates, invisible characters


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␛ … ␟
    return _DEL if code == 0x7F else _OTHER


def shown_controls(text: str, *, keep_tabs: bool = False) -> str:
    """`text` with each control character replaced by a visible stand-in, one for one
    (the same length, so positions in `text` are positions in what is drawn)."""
    if text.isprintable():  # the common case: no regex work
        return text
    return (_CONTROL_BUT_TAB if keep_tabs else _CONTROL).sub(_stand_in, text)


def editable_json(
    value: Any, *, indent: int | None = 2, default: Callable[[Any], Any] | None = None
) -> str:
    """`value` as JSON for a person to edit: readable (non-ASCII letters as they are),
    with controls, bidi overrides and invisible characters as `\\uXXXX` escapes."""
    return exact_json(value, indent=indent, default=default)


class Input(widgets.Input):
    """Textual's `Input`, its value drawn inert (see the module's docstring)."""

    @property
    def _value(self) -> Text:
        # Textual's own rendering hook for the value: the same Text it builds, from the
        # value with its controls shown instead of sent.
        if self.password or self.value.isprintable():
            return super()._value
        return Text(shown_controls(self.value), no_wrap=True, overflow="ignore", end="")


class TextArea(widgets.TextArea):
    """Textual's `TextArea`, its lines drawn inert (see the module's docstring)."""

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        plain = self.document.get_line(line_index)
        if plain.isprintable():
            return line
        # `Text` itself drops BEL, backspace and form feeds, which would shift every
        # character after them: build the line again from the document's own string.
        return Text(shown_controls(plain, keep_tabs=True), end="", no_wrap=True)


def inert_prompt(prompt: RenderableType) -> RenderableType:
    """An option's prompt as inert text: a str is cleaned and never read as markup."""
    if isinstance(prompt, str):
        return Text(clean_text(prompt))
    if isinstance(prompt, Text) and clean_text(prompt.plain) != prompt.plain:
        return Text(clean_text(prompt.plain), style=prompt.style)
    return prompt


def _inert_options(
    options: Iterable[tuple[RenderableType, SelectType]],
) -> list[tuple[RenderableType, SelectType]]:
    return [(inert_prompt(prompt), value) for prompt, value in options]


class Select(widgets.Select[SelectType]):
    """Textual's `Select`, its options' prompts inert (see the module's docstring)."""

    def __init__(self, options: Iterable[tuple[RenderableType, SelectType]], **kwargs: Any) -> None:
        super().__init__(_inert_options(options), **kwargs)

    def set_options(self, options: Iterable[tuple[RenderableType, SelectType]]) -> None:
        super().set_options(_inert_options(options))
