"""`:` command mode: one input line at the bottom, with completion.

Typing shows the matching commands above the line; `tab` completes to the first (or
the common prefix), `up`/`down` walk through earlier commands, `enter` runs, `esc` closes. The screen returns the line (or None)
and the app runs it (`ShellApp.run_command`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.tui import routes
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.commands import SHELL_COMMANDS, complete
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.text import server_text


def _help_for(word: str) -> str:
    route = routes.get(word)
    if route is not None:
        return route.help
    return SHELL_COMMANDS.get(word, ("", None))[0]


def _takes_argument(word: str) -> bool:
    route = routes.get(word)
    if route is not None:
        return route.argument is not None
    return SHELL_COMMANDS.get(word, ("", None))[1] is not None


def _label(line: str) -> str:
    """`:thread <id>` for a bare command word that takes an argument."""
    if " " in line:
        return f":{line}"
    route = routes.get(line)
    argument = route.argument if route is not None else SHELL_COMMANDS.get(line, ("", None))[1]
    return f":{line} <{argument}>" if argument else f":{line}"


def _common_prefix(lines: list[str]) -> str:
    first, last = min(lines), max(lines)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


class CommandLineScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    CommandLineScreen { align: left bottom; background: $background 0%; }
    CommandLineScreen > Vertical { height: auto; dock: bottom; background: $surface; }
    CommandLineScreen #command-completions { height: auto; max-height: 10; padding: 0 1; color: $text-muted; }
    CommandLineScreen #command-row { height: 1; }
    CommandLineScreen #command-colon { width: 1; text-style: bold; }
    CommandLineScreen #command-input { border: none; height: 1; padding: 0; width: 1fr; }
    """
    # Screen's own bindings (with ids, from AgentScreen), then this modal's.
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "close", "Close", id="command_line.close"),
        Binding("tab", "complete", "Complete", id="command_line.complete", priority=True),
        Binding("up", "history(-1)", "Previous command", id="command_line.previous"),
        Binding("down", "history(1)", "Next command", id="command_line.next"),
    ]

    def __init__(self, history: list[str] | None = None) -> None:
        """`history`: earlier command lines, oldest first (`up` walks back through them)."""
        super().__init__()
        self.history = list(history or [])
        self._position = len(self.history)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="command-completions")
            with Horizontal(id="command-row"):
                yield Static(":", id="command-colon")
                yield Input(
                    placeholder="command (tab completes, ↑ history, esc closes)",
                    id="command-input",
                )

    def on_mount(self) -> None:
        self.query_one("#command-input", Input).focus()
        self._show_completions("")

    def completions(self, text: str) -> list[str]:
        app = agent_app(self.app)
        return complete(text, app.command_words(), app.command_arguments())

    def _show_completions(self, text: str) -> None:
        found = self.completions(text)[:10]
        labels = [_label(line) for line in found]
        width = max((len(label) for label in labels), default=0)
        shown = Text()
        for line, label in zip(found, labels, strict=True):
            if shown:
                shown.append("\n")
            shown.append_text(server_text(label.ljust(width), style="bold"))
            help_text = _help_for(line.split(" ", 1)[0])
            if help_text and " " not in line:
                shown.append(f"  {help_text}", style="dim")
        if not found and text.strip():
            shown = Text("no matching command", style="italic")
        self.query_one("#command-completions", Static).update(shown)

    def on_key(self, event: events.Key) -> None:
        """Keys sent right after `:` (a fast typist, a paste, a loaded machine) can come
        before the input has taken the focus: they reach the screen, which would drop
        them. They go to the line instead, so `:store x⏎` typed in one go runs as typed."""
        box = self.query_one("#command-input", Input)
        if self.focused is box:
            return
        if event.key == "enter":
            self.dismiss(box.value.strip() or None)
        elif event.key == "backspace":
            box.action_delete_left()
        elif event.is_printable and event.character:
            box.insert_text_at_cursor(event.character)
        else:
            return
        event.stop()
        event.prevent_default()
        box.focus()

    @on(Input.Changed, "#command-input")
    def _changed(self, event: Input.Changed) -> None:
        self._show_completions(event.value)

    @on(Input.Submitted, "#command-input")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_complete(self) -> None:
        box = self.query_one("#command-input", Input)
        found = self.completions(box.value)
        if not found:
            return
        if len(found) == 1:
            line = found[0]
            if " " not in line and _takes_argument(line):
                line += " "
        else:
            line = _common_prefix(found)
        if len(line) > len(box.value.lstrip(":")):
            box.value = line
            box.cursor_position = len(line)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        line = self.history[self._position] if self._position < len(self.history) else ""
        box = self.query_one("#command-input", Input)
        box.value = line
        box.cursor_position = len(line)

    def action_close(self) -> None:
        self.dismiss(None)
