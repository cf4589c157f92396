"""Turning server strings into renderables that can never act as markup or control codes.

Textual parses markup in plain `str` given to Static, Label, DataTable cells and
notify: a graph id like `[@click=app.quit]` would become a live action. A `Text`
object is never parsed, and `clean_text` has removed escape sequences already.
"""

from __future__ import annotations

from rich.text import Text

from agent_tui.text.sanitize import clean_text


def server_text(value: object, style: str = "") -> Text:
    """`value` (anything a server sent) as inert, cleaned text."""
    return Text(clean_text("" if value is None else str(value)), style=style)


def server_line(value: object, style: str = "") -> Text:
    """`value` as `server_text` on one line: its line breaks (a `\r` too) and runs of
    blanks as one space, for a name in a line that must stay one (a breadcrumb, a title)."""
    return Text(" ".join(clean_text("" if value is None else str(value)).split()), style=style)
