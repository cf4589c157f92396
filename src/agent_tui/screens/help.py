"""`?`: every key of the screen you were on, with what it does, then the global keys.

Built from the screen's active bindings (so a remapped key shows its new key, and a
verb the screen does not offer is not listed).
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

KeyRow = tuple[str, str]  # (key as shown, description)


def _description(binding: Binding) -> str:
    return binding.description or binding.tooltip or binding.action


def keys_of(screen: Screen[object]) -> tuple[list[KeyRow], list[KeyRow]]:
    """(this screen's keys, the global keys), each sorted as the bindings are declared."""
    app = screen.app
    local: list[KeyRow] = []
    global_: list[KeyRow] = []
    seen: set[tuple[str, str]] = set()
    for active in screen.active_bindings.values():
        binding = active.binding
        if binding.system or (not active.enabled and not binding.show):
            continue
        key = app.get_key_display(binding)
        row = (key, _description(binding))
        if row in seen:
            continue
        seen.add(row)
        (global_ if isinstance(active.node, App) else local).append(row)
    return local, global_


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 72; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; padding-bottom: 1; }
    HelpScreen VerticalScroll { height: auto; max-height: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, title: str, local: list[KeyRow], global_: list[KeyRow]) -> None:
        super().__init__()
        self.heading = title
        self.local_keys = local
        self.global_keys = global_

    @classmethod
    def for_screen(cls, screen: Screen[object]) -> HelpScreen:
        local, global_ = keys_of(screen)
        title = getattr(screen, "breadcrumb_title", None) or type(screen).__name__
        return cls(f"Keys: {title}", local, global_)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.heading), id="help-title")
            with VerticalScroll():
                yield Static(self._table(), id="help-keys")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for section, rows in (("This screen", self.local_keys), ("Everywhere", self.global_keys)):
            if not rows:
                continue
            table.add_row(Text(section, style="underline"), "")
            for key, description in rows:
                table.add_row(Text(key), Text(description))
            table.add_row("", "")
        return table

    @property
    def plain_keys(self) -> list[KeyRow]:
        return [*self.local_keys, *self.global_keys]
