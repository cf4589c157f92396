"""The thread search form: status, metadata (exact match), sort field and order, page size.

Dismisses with a checked `ThreadQuery`, or None on cancel. Bad input stays in the form
with the reason under it (`threads.query.QueryError` names the field).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.client.models import THREAD_STATUSES
from agent_tui.threads.query import (
    SORT_FIELDS,
    SORT_ORDERS,
    QueryError,
    ThreadQuery,
    format_metadata,
)
from agent_tui.tui.widgets.inert import Input, Select
from agent_tui.tui.widgets.text import server_text

ANY = "any"


class ThreadSearchScreen(ModalScreen[ThreadQuery | None]):
    DEFAULT_CSS = """
    ThreadSearchScreen { align: center middle; }
    ThreadSearchScreen > Vertical {
        width: 80; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    ThreadSearchScreen .title { text-style: bold; margin-bottom: 1; }
    ThreadSearchScreen Label { margin-top: 1; }
    ThreadSearchScreen .row { height: auto; }
    ThreadSearchScreen .row > Vertical { width: 1fr; height: auto; }
    ThreadSearchScreen #search-error { color: $text-error; margin-top: 1; display: none; }
    ThreadSearchScreen .buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ThreadSearchScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="thread_search.cancel"),
        Binding("ctrl+s", "search", "Search", id="thread_search.search"),
    ]

    def __init__(self, query: ThreadQuery | None = None) -> None:
        super().__init__()
        self.initial = query or ThreadQuery()

    def compose(self) -> ComposeResult:
        query = self.initial
        with Vertical():
            yield Static("Search threads (on the server)", classes="title")
            yield Label("Status")
            yield Select(
                [(ANY, ANY), *((s, s) for s in THREAD_STATUSES)],
                value=query.status or ANY,
                allow_blank=False,
                id="search-status",
            )
            yield Label("Metadata (exact match): key=value …  or a JSON object")
            yield Input(
                format_metadata(query.metadata),
                placeholder="graph_id=chat user=ann",
                id="search-metadata",
            )
            with Horizontal(classes="row"):
                with Vertical():
                    yield Label("Sort by")
                    yield Select(
                        [(f, f) for f in SORT_FIELDS],
                        value=query.sort_by,
                        allow_blank=False,
                        id="search-sort-by",
                    )
                with Vertical():
                    yield Label("Order")
                    yield Select(
                        [(o, o) for o in SORT_ORDERS],
                        value=query.sort_order,
                        allow_blank=False,
                        id="search-sort-order",
                    )
                with Vertical():
                    yield Label("Page size")
                    yield Input(str(query.page_size), id="search-page-size", type="integer")
            yield Static(id="search-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Search", id="search", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#search-metadata", Input).focus()

    def _value(self, selector: str) -> str:
        value = self.query_one(selector, Select).value
        return value if isinstance(value, str) else ""

    def build_query(self) -> ThreadQuery:
        return ThreadQuery.from_input(
            status=self._value("#search-status"),
            metadata=self.query_one("#search-metadata", Input).value,
            sort_by=self._value("#search-sort-by"),
            sort_order=self._value("#search-sort-order"),
            page_size=self.query_one("#search-page-size", Input).value,
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#search")
    def action_search(self) -> None:
        try:
            query = self.build_query()
        except QueryError as error:
            widget = self.query_one("#search-error", Static)
            widget.update(server_text(str(error)))
            widget.display = True
            return
        self.dismiss(query)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
