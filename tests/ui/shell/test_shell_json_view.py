"""JSON views show server data as inert text, highlighted or as a collapsible tree."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from agent_tui.tui.widgets.json_view import JsonTree, JsonView
from tests.support.screen import screen_text

HOSTILE = "[@click=app.quit]x[/] [bold]b\x1b]0;title\x07\x1b[31m\u202e"
DATA: dict[str, Any] = {
    "values": {"messages": [{"content": HOSTILE}], HOSTILE: 3},
    "next": [],
    "ok": True,
}


class Views(App[None]):
    def compose(self) -> ComposeResult:
        yield JsonView(DATA)
        yield JsonTree(DATA, label="state")


async def test_json_view_and_tree_are_inert() -> None:
    app = Views()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(JsonView)
        assert "[@click=app.quit]x[/] [bold]b" in view.text
        assert "\x1b" not in view.text and "\u202e" not in view.text

        tree = app.query_one(JsonTree)
        labels: list[str] = []

        def walk(node: Any) -> None:
            labels.append(node.label.plain)
            for child in node.children:
                walk(child)

        walk(tree.root)
        assert "values {2}" in labels and "next [0]" in labels and "ok: true" in labels
        # A key with control characters in it is shown escaped (its text inert), on one line.
        assert any(
            "[@click=app.quit]x[/] [bold]b" in label and label.endswith(": 3") for label in labels
        )
        assert all("\x1b" not in label for label in labels)
        await pilot.click(JsonTree, offset=(4, 3))
        await pilot.click(JsonView, offset=(4, 3))
        assert app.is_running

        view.update({"replaced": 1})
        assert '"replaced": 1' in view.text


class TreeOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield JsonTree({"name": "a long value " * 4, "items": list(range(30))}, label="state")


async def test_the_tree_is_drawn_again_at_each_width_and_keeps_its_keys() -> None:
    app = TreeOnly()
    async with app.run_test(size=(80, 12)) as pilot:
        tree = app.query_one(JsonTree)
        tree.focus()
        await pilot.pause()
        assert "name: " in screen_text(app) and "a long value a long value" in screen_text(app)
        await pilot.resize_terminal(24, 12)  # narrower: lines cut at the new width
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert all(len(line) <= 24 for line in lines) and "name: " in screen_text(app)
        await pilot.resize_terminal(80, 30)  # wider and taller: whole lines, more of them
        await pilot.pause()
        assert "a long value a long value" in screen_text(app) and "[20]" in screen_text(app)
        await pilot.press("down", "down")  # the cursor moves over the lines drawn
        assert tree.cursor_line == 2
