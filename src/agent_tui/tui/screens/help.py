"""`?`: every key of the screen you were on, with what it does, then the global keys.

Built from the screen's active bindings (so a remapped key shows its new key, and a
verb the screen does not offer is not listed).
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from agent_tui.tui.agent_screen import AgentScreen

KeyRow = tuple[str, str]  # (key as shown, description)


def _description(binding: Binding) -> str:
    return binding.description or binding.tooltip or binding.action


def keys_of(screen: Screen[object]) -> tuple[list[KeyRow], list[KeyRow], list[KeyRow]]:
    """(the screen's own keys, the focused widget's keys, the global keys).

    Keys that do the same thing share one row ("home, g  First row"); the keys the
    footer shows come first, then in the order the bindings are declared.
    """
    app = screen.app
    groups: tuple[dict[str, list[str]], ...] = ({}, {}, {})
    shown: set[str] = set()
    for active in screen.active_bindings.values():
        binding = active.binding
        if binding.system or (not active.enabled and not binding.show):
            continue
        if isinstance(active.node, App):
            group = groups[2]
        elif isinstance(active.node, Screen):
            group = groups[0]
        else:
            group = groups[1]
        description = _description(binding)
        if binding.show:
            shown.add(description)
        keys = group.setdefault(description, [])
        key = app.get_key_display(binding)
        if key not in keys:
            keys.append(key)
    own, widget, global_ = (
        sorted(
            ((", ".join(keys), description) for description, keys in group.items()),
            key=lambda row: row[1] not in shown,
        )
        for group in groups
    )
    return own, widget, global_


def screen_title(screen: Screen[object]) -> str:
    """What the help calls `screen`: the title its breadcrumb shows (`threads`), else its
    class's `HELP_TITLE`, else its class's name in words (`PathScreen` → `path`), so a
    screen without a title still reads as words."""
    title = getattr(screen, "breadcrumb_title", None) or getattr(screen, "HELP_TITLE", None)
    if isinstance(title, str) and title:
        return title
    name = type(screen).__name__.removesuffix("Screen") or "screen"
    return " ".join(word.lower() for word in re.findall(r"[A-Z]+[a-z0-9]*|[a-z0-9]+", name))


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
    # Screen's own bindings (with ids, from AgentScreen), then this modal's.
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,question_mark,q", "dismiss", "Close", id="help.close"),
    ]

    def __init__(
        self,
        title: str,
        own: list[KeyRow],
        widget: list[KeyRow],
        global_: list[KeyRow],
    ) -> None:
        super().__init__()
        self.heading = title
        self.own_keys = own
        self.widget_keys = widget
        self.global_keys = global_

    @classmethod
    def for_screen(cls, screen: Screen[object]) -> HelpScreen:
        own, widget, global_ = keys_of(screen)
        return cls(f"Keys: {screen_title(screen)}", own, widget, global_)

    @property
    def local_keys(self) -> list[KeyRow]:
        """Every key of the screen: its own, then the focused widget's."""
        return [*self.own_keys, *self.widget_keys]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.heading), id="help-title")
            with VerticalScroll():
                yield Static(self._table(), id="help-keys")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        sections = (
            ("This screen", self.own_keys),
            ("Moving around", self.widget_keys),
            ("Everywhere", self.global_keys),
        )
        for section, rows in sections:
            if not rows:
                continue
            table.add_row(Text(section, style="underline"), "")
            for key, description in rows:
                table.add_row(Text(key), Text(description))
            table.add_row("", "")
        return table
