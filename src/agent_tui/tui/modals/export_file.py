"""Where to write an export (`x` on the Datasets and Experiments screens): a path, by
default a new file in the current folder, shown whole so the user sees where it goes.

The file is written whole or not at all (`settings.atomic_file.write_export`). A file
already there is written over only when "Replace" is ticked; a folder, a path the
system refuses or a full disk says why under the path, with the path as typed kept and
nothing written. Dismisses with the absolute path written, or None on cancel.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Static

from agent_tui.settings.atomic_file import write_export
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.labelled_field import LabelledField, show_field_problems
from agent_tui.tui.widgets.text import server_text


def default_export_path(file_name: str) -> Path:
    """`file_name` in the current folder."""
    return Path.cwd() / file_name


def export_to_file(
    screen: Screen[Any],
    title: str,
    file_name: str,
    text: Callable[[], str],
    *,
    said: Callable[[Path], str],
    notice: str,
) -> None:
    """Asks where (`ExportFileScreen`, `file_name` in the current folder by default),
    writes `text()` there and says `said(path)` under the title `notice`."""

    def written(path: Path | None) -> None:
        if path is not None:
            screen.notify(said(path), title=notice, markup=False)

    screen.app.push_screen(ExportFileScreen(title, default_export_path(file_name), text), written)


class ExportFileScreen(SavingForm[tuple[Path, bool], Path]):
    DEFAULT_CSS = """
    ExportFileScreen { align: center middle; }
    ExportFileScreen > Vertical {
        width: 90%; max-width: 110; height: auto;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ExportFileScreen .title { text-style: bold; }
    ExportFileScreen #export-error { color: $text-error; display: none; }
    ExportFileScreen .buttons { height: auto; align-horizontal: right; }
    ExportFileScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export_file.cancel"),
        Binding("ctrl+s", "save", "Export", id="export_file.save"),
    ]
    SAVE_GROUP = "export-file-write"
    ERROR_LINE = "#export-error"

    def __init__(self, title: str, default: Path, content: Callable[[], str]) -> None:
        """`content`: the text to write (called in a worker thread)."""
        super().__init__()
        self.heading = title
        self.default = default
        self.content = content

    @property
    def doing(self) -> str:
        return "export"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), classes="title")
            yield LabelledField(
                "Write to (a new file; ~ for your home folder)",
                Input(str(self.default), id="export-path"),
                name="path",
            )
            yield Checkbox("Replace the file if it exists", False, id="export-replace")
            yield Static(id="export-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Export (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def show_problems(self, problems: dict[str, str]) -> None:
        show_field_problems(self, problems)

    def focus_field(self, field: str) -> None:
        super().focus_field(f"export-{field}")

    def read_form(self) -> tuple[Path, bool] | None:
        typed = self.query_one("#export-path", Input).value.strip()
        if not typed:
            self.mark_refused({"path": "name the file to write"})
            return None
        self.show_problems({})
        return Path(typed), self.query_one("#export-replace", Checkbox).value

    async def send(self, body: tuple[Path, bool]) -> Path:
        path, replace = body
        try:
            return await asyncio.to_thread(
                lambda: write_export(path, self.content(), replace=replace)
            )
        except FileExistsError as error:
            why = f"{error}: tick “Replace” to write over it, or name another file"
            raise NotSaved("Nothing was written.", {"path": why}) from None
        except OSError as error:
            why = str(error) if error.strerror is None else self._system_said(error)
            raise NotSaved("Nothing was written.", {"path": why}) from None

    @staticmethod
    def _system_said(error: OSError) -> str:
        where = f" ({error.filename})" if error.filename else ""
        return f"the system refused: {error.strerror}{where}"

    @on(Input.Submitted)
    def _enter_exports(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
