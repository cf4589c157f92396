"""Helpers for SVG snapshots: what must hold still before the picture is taken."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import Input, TextArea


def steady_cursors(app: App[Any]) -> None:
    """Text cursors blink every half second, on every screen of the stack: held still,
    the picture no longer depends on the moment it is taken (under load a snapshot came
    out with the cursor off)."""
    for screen in app.screen_stack:
        for field in [*screen.query(Input), *screen.query(TextArea)]:
            field.cursor_blink = False


async def settled(pilot: Any) -> None:
    """Every worker done and every message handled, twice: what a finished load starts
    (a second page, a redraw) has finished too."""
    for _ in range(2):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
