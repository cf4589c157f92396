"""The header line: the title, where you are (context > assistant > thread) and the
connection state. Screens yield `Breadcrumb()` where they would yield `Header()`.

It follows the app's `selection` (tui/selection.py) and `connection_status` (`app_contract`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.widgets.text import server_line, server_text

SEPARATOR = " \u203a "  # a single right-pointing angle quote
_KIND_LABEL = {
    "context": "ctx",
    "deployment": "deployment",
    "assistant": "assistant",
    "thread": "thread",
}


def _connection_style(status: str) -> str:
    if status.startswith("connected"):
        return "green"
    if status.startswith(("offline", "failed")):
        return "bold red"
    return "yellow"


class Breadcrumb(Static):
    DEFAULT_CSS = """
    Breadcrumb {
        dock: top; width: 100%; height: 1;
        background: $panel; color: $foreground; padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._unsubscribe: list[object] = []

    def on_mount(self) -> None:
        selection = agent_app(self.app).selection
        self._unsubscribe.append(selection.subscribe(lambda _s: self.refresh_trail()))
        self.watch(self.app, "connection_status", lambda _v: self.refresh_trail(), init=False)
        self.refresh_trail()

    def on_unmount(self) -> None:
        for unsubscribe in self._unsubscribe:
            if callable(unsubscribe):
                unsubscribe()
        self._unsubscribe.clear()

    def refresh_trail(self) -> None:
        self.update(self.trail_text())

    def trail_text(self) -> Text:
        text = Text(self.app.title, style="bold")
        app = agent_app(self.app)
        for kind, value in app.selection.trail:
            text.append(SEPARATOR, style="dim")
            text.append(f"{_KIND_LABEL.get(kind, kind)} ", style="dim")
            text.append_text(server_line(value, style="bold"))
        screen_title = getattr(self.screen, "breadcrumb_title", None)
        if isinstance(screen_title, str) and screen_title:
            text.append(SEPARATOR, style="dim")
            text.append_text(server_line(screen_title))
        status = app.connection_status
        if status:
            state = server_text(f"● {status}", style=_connection_style(status))
            width = self.size.width - 2 if self.size.width else 0
            pad = max(2, width - text.cell_len - state.cell_len)
            text.append(" " * pad)
            text.append_text(state)
        return text

    def on_resize(self) -> None:
        self.refresh_trail()
