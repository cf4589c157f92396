"""The raw JSON of one resource, as the server sent it: highlighted, cleaned, scrollable.

`y` on any resource screen opens it with the item's `.raw()`. `c` copies the JSON, every
value exact (what the screen cannot show, controls and lone surrogates, written out as
`\\u` escapes rather than dropped).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.text.escaping import exact_json
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.json_view import JsonView
from agent_tui.tui.widgets.text import server_text


class RawJsonScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    RawJsonScreen { align: center middle; }
    RawJsonScreen > Vertical {
        width: 90%; height: 90%; border: thick $primary; background: $surface;
    }
    RawJsonScreen #raw-title { text-style: bold; padding: 0 1; background: $primary 30%; }
    RawJsonScreen JsonView { padding: 0 1; }
    """
    # Screen's own bindings (with ids, from AgentScreen), then this modal's.
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,q,y", "dismiss", "Close", id="raw_json.close"),
        Binding("c", "copy", "Copy JSON", id="raw_json.copy"),
    ]

    def __init__(self, data: Any, *, title: str = "Raw JSON") -> None:
        super().__init__()
        self.data = data
        self.heading = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), id="raw-title")
            yield JsonView(self.data, id="raw-json")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(JsonView).focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(exact_json(self.data))
        self.notify("Copied the JSON to the clipboard", markup=False)
