"""Views of JSON from a server: highlighted text (`JsonView`) or a collapsible tree (`JsonTree`).

Both are inert: the JSON is dumped, cleaned of terminal control sequences and rendered
as `Syntax`/`Text`, never as markup. Used by the raw JSON modal and, later, the thread
view (state values, checkpoint writes).
"""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from agent_tui.text.sanitize import clean_text
from agent_tui.tui.widgets.laid_out_once import expect_vertical_scroll_bar
from agent_tui.tui.widgets.text import server_text


def json_dumps(data: Any) -> str:
    """Pretty, cleaned JSON text (non-JSON values shown with `str`)."""
    return clean_text(json.dumps(data, indent=2, ensure_ascii=False, default=str, sort_keys=False))


def json_syntax(data: Any) -> Syntax:
    return Syntax(
        json_dumps(data),
        "json",
        theme="ansi_dark",
        background_color="default",
        word_wrap=True,
        line_numbers=False,
    )


class JsonView(VerticalScroll):
    """Scrollable, highlighted JSON. `update(data)` replaces what it shows."""

    DEFAULT_CSS = """
    JsonView { height: 1fr; }
    JsonView > Static { width: 100%; height: auto; }
    """

    def __init__(
        self, data: Any = None, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes, can_focus=True)
        self._data = data

    @property
    def data(self) -> Any:
        return self._data

    @property
    def text(self) -> str:
        """What is shown, as plain text."""
        return json_dumps(self._data)

    def compose(self) -> ComposeResult:
        yield Static(json_syntax(self._data), classes="json-body")

    def update(self, data: Any) -> None:
        """Show `data` (before the view is composed: what it composes with)."""
        self._data = data
        for body in self.query(".json-body").results(Static):
            body.update(json_syntax(data))


_LEAF_LIMIT = 200  # characters of a scalar shown on a tree label


def _scalar(value: Any) -> Text:
    if isinstance(value, str):
        shown = value if len(value) <= _LEAF_LIMIT else value[:_LEAF_LIMIT] + "…"
        return server_text(json.dumps(shown, ensure_ascii=False), style="green")
    if value is None or isinstance(value, bool):
        return Text(json.dumps(value), style="italic")
    if isinstance(value, int | float):
        return Text(str(value), style="cyan")
    return server_text(str(value))


def _key_text(key: str) -> Text:
    """A key on one line: a label is one line, so a `\r` or `\n` in a key (which the
    cleaning turns into a line break) would hide the rest of the key and its value.
    Such keys are shown JSON-escaped (`a\\rb`), as the raw JSON view shows them."""
    if not key.isprintable():
        key = json.dumps(key, ensure_ascii=False)[1:-1]
    return server_text(key, style="bold")


class JsonTree(Tree[Any]):
    """A collapsible tree of JSON: objects and arrays are branches, scalars are leaves."""

    def __init__(
        self,
        data: Any = None,
        *,
        label: str = "value",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(server_text(label, style="bold"), data=data, id=id, classes=classes)
        self.show_root = True
        self.lines = 1  # on screen, every expanded branch open (`update`)

    def on_mount(self) -> None:
        self.update(self.root.data)

    def on_resize(self, event: events.Resize) -> None:
        # `Tree` drops every drawn line and asks for a layout of the screen on each
        # resize, its first sizing included: opening the thread view with a state in
        # its tree laid the whole screen out a second time for it. Its lines are kept
        # per width and its virtual size is its lines'; the layout that resized it
        # has drawn it at its new size already (before this event is handled), so
        # nothing is left to do: a repaint here drew it a second time.
        event.prevent_default()

    def update(self, data: Any, *, expand_depth: int = 1) -> None:
        self.clear()
        self.root.data = data
        self.lines = self._fill(self.root, data, expand_depth, shown=True) + self.show_root
        self.root.expand()
        expect_vertical_scroll_bar(self, self.lines)

    def _fill(self, node: TreeNode[Any], value: Any, expand_depth: int, *, shown: bool) -> int:
        """Add `value`'s entries under `node`; the lines they take on screen (`shown`:
        `node` is expanded, and its ancestors are)."""
        entries: list[tuple[str, Any]]
        if isinstance(value, dict):
            entries = [(str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            entries = [(f"[{index}]", item) for index, item in enumerate(value)]
        else:
            node.set_label(Text.assemble(node.label, " ", _scalar(value)))
            return 0
        lines = len(entries) if shown else 0
        for key, item in entries:
            label = _key_text(key)
            if isinstance(item, dict | list):
                size = f" {{{len(item)}}}" if isinstance(item, dict) else f" [{len(item)}]"
                child = node.add(Text.assemble(label, (size, "dim")), data=item)
                lines += self._fill(child, item, expand_depth - 1, shown=shown and expand_depth > 0)
                if expand_depth > 0:
                    child.expand()
            else:
                node.add_leaf(Text.assemble(label, ": ", _scalar(item)), data=item)
        return lines
