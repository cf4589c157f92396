"""`s` on the Store: search the selected namespace on the server.

Two fields: a JSON `filter` (exact match on the value's keys: `{"city": "Paris"}`) and a
natural-language `query` (ranked only when the server has a store index; the screen says
so when it has none). Both empty clears the search. A filter that is not a JSON object
stays in the field with the reason under it. Dismisses with a `StoreSearch`, or None.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.store.item_input import StoreInputError, StoreSearch
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.text import server_text


class StoreSearchScreen(ModalScreen[StoreSearch | None]):
    DEFAULT_CSS = """
    StoreSearchScreen { align: center middle; }
    StoreSearchScreen > Vertical {
        width: 80; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    StoreSearchScreen .title { text-style: bold; }
    StoreSearchScreen Label { margin-top: 1; }
    StoreSearchScreen .field-error { color: $text-error; display: none; }
    StoreSearchScreen .buttons { height: auto; align-horizontal: right; margin-top: 1; }
    StoreSearchScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="store_search.cancel"),
        Binding("ctrl+s", "search", "Search", id="store_search.search"),
    ]

    def __init__(self, where: str, search: StoreSearch | None = None) -> None:
        super().__init__()
        self.where = where
        self.initial = search or StoreSearch()
        self.error: str | None = None  # what the form shows under the filter, if anything

    def compose(self) -> ComposeResult:
        initial = self.initial
        with Vertical():
            yield Static(server_text(f"Search {self.where} (on the server)"), classes="title")
            yield Label('Filter: a JSON object, exact match on the value ({"city": "Paris"})')
            yield Input(
                json.dumps(initial.filter, ensure_ascii=False) if initial.filter else "",
                placeholder='{"city": "Paris"}',
                id="search-filter",
            )
            yield Static(id="search-filter-error", classes="field-error")
            yield Label("Query: natural language (ranked when the server has a store index)")
            yield Input(initial.query, placeholder="where does the user live", id="search-query")
            yield Static("Both empty: every item.", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Search (ctrl+s)", id="search", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#search-filter", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#search")
    def action_search(self) -> None:
        shown = self.query_one("#search-filter-error", Static)
        try:
            search = StoreSearch.from_input(
                filter=self.query_one("#search-filter", Input).value,
                query=self.query_one("#search-query", Input).value,
            )
        except StoreInputError as error:
            self.error = str(error)
            shown.update(server_text(str(error)))
            shown.display = True
            self.query_one("#search-filter", Input).focus()
            return
        self.dismiss(search)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
