"""Edit JSON as text: in `$VISUAL`/`$EDITOR` when one is set, else in an in-app editor.

    text = await edit_text(app, json.dumps(body, indent=2), title="New assistant")
    if text is not None:  # None: the user cancelled
        ...

With an editor command the app suspends (the terminal is the editor's until it exits)
and the text comes back from a temporary file. Where suspending is impossible (tests,
some terminals on Windows, the web) or the editor cannot start, the in-app editor opens
instead: a `TextArea`, `ctrl+s` to keep the text, `esc` to cancel. The caller parses
the text, so a typo never loses what was written.
"""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.tui.widgets.inert import TextArea
from agent_tui.tui.widgets.key_order import after_typed_keys
from agent_tui.tui.widgets.text import server_text

logger = logging.getLogger(__name__)


def editor_command() -> list[str] | None:
    """The user's editor command (`$VISUAL`, then `$EDITOR`), split like a shell would."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                logger.warning("cannot parse $%s=%r", variable, value)
    return None


def run_editor(command: list[str], text: str, *, suffix: str = ".json") -> str | None:
    """Run `command FILE` on a temporary file holding `text`; the file's text after.

    None when the editor could not start or failed (exit status other than 0).
    """
    handle, name = tempfile.mkstemp(prefix="agent-tui-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            result = subprocess.run([*command, str(path)], check=False)
        except OSError as error:
            logger.warning("cannot start the editor %s: %s", command, error)
            return None
        if result.returncode != 0:
            logger.warning("the editor %s exited with %s", command, result.returncode)
            return None
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


class TextEditorScreen(ModalScreen[str | None]):
    """The in-app editor: answers the text (`ctrl+s`) or None (`esc`)."""

    DEFAULT_CSS = """
    TextEditorScreen { align: center middle; }
    TextEditorScreen > Vertical {
        width: 90%; height: 90%; border: thick $primary; background: $surface;
    }
    TextEditorScreen #editor-title { text-style: bold; padding: 0 1; background: $primary 30%; }
    TextEditorScreen #editor-hint { color: $text-muted; padding: 0 1; }
    TextEditorScreen TextArea { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Keep", priority=True, id="editor.save"),
        Binding("escape", "cancel", "Cancel", id="editor.cancel"),
    ]

    def __init__(self, text: str, *, title: str = "Edit JSON", hint: str = "") -> None:
        super().__init__()
        self.text = text
        self.heading = title
        self.hint = hint or "ctrl+s keeps the text · esc cancels · set $EDITOR to use your own"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), id="editor-title")
            yield Static(server_text(self.hint), id="editor-hint")
            area = TextArea(self.text, id="editor-text", tab_behavior="indent")
            area.show_line_numbers = True
            yield area
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        after_typed_keys(self, self._save)

    def _save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


async def edit_text(app: App[Any], text: str, *, title: str = "Edit JSON") -> str | None:
    """Let the user edit `text`; None when they cancel. Call from a worker (it waits)."""
    command = editor_command()
    if command is not None:
        try:
            with app.suspend():
                edited = run_editor(command, text)
        except SuspendNotSupported:
            edited = None
        else:
            if edited is not None:
                return edited
            app.notify(
                f"The editor {' '.join(command)} failed; using the built-in editor.",
                severity="warning",
                markup=False,
            )
    return await app.push_screen_wait(TextEditorScreen(text, title=title))
