"""The context picker: every context of the config file, pick one to connect to.

A modal over the current screen. It shows where each context's key comes from,
never the key. `enter` answers the highlighted context's name, `esc` answers None:

    app.push_screen(ContextPickerScreen(summaries, config_file), callback)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from agent_tui.settings.contexts import ContextSummary
from agent_tui.tui.widgets.text import server_text

COLUMNS = ("", "Name", "Agent server", "API key", "Workspace", "Read-only", "Headers")


def context_cells(row: ContextSummary) -> tuple[Text, ...]:
    """The table cells of one context (inert text: the config file is user input)."""
    key_style = "" if row.key_available else "bold yellow"
    return (
        Text("●" if row.current else " ", style="bold green"),
        server_text(row.name, "bold" if row.current else ""),
        server_text(row.agent_server_url or "embedded (started by agent-tui)"),
        server_text(row.key_source, key_style),
        server_text(row.workspace_id or ""),
        server_text("read-only" if row.readonly else ""),
        server_text(", ".join(row.headers)),  # each header's source, never its value
    )


class ContextPickerScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ContextPickerScreen { align: center middle; }
    ContextPickerScreen > Vertical {
        width: 90%; max-width: 140; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    ContextPickerScreen #context-picker-title { text-style: bold; margin-bottom: 1; }
    ContextPickerScreen DataTable { height: auto; max-height: 20; }
    ContextPickerScreen #context-picker-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="context_picker.cancel"),
    ]

    def __init__(self, contexts: Sequence[ContextSummary], config_file: Path) -> None:
        super().__init__()
        self.contexts = list(contexts)
        self.config_file = config_file

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Switch context", id="context-picker-title")
            yield DataTable(id="contexts", cursor_type="row", zebra_stripes=True)
            yield Static(
                server_text(
                    f"enter: connect · esc: cancel · contexts live in {self.config_file} "
                    "(agent-tui config set-context …)"
                ),
                id="context-picker-hint",
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        for row in self.contexts:
            table.add_row(*context_cells(row), key=row.name)
        current = next((i for i, row in enumerate(self.contexts) if row.current), 0)
        table.move_cursor(row=current)
        table.focus()

    @on(DataTable.RowSelected)
    def _picked(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
