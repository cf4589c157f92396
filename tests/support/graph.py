"""Reading a drawn graph (`tui/widgets/graph_view.py`) as the user sees it: which boxes
are shown in which style."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.style import Style
from textual.widgets import Static


def boxes_styled(drawing: Static, wanted: Callable[[Style], bool]) -> list[str]:
    """The middle lines (`│ name │`) of the boxes shown in a style `wanted` accepts."""
    shown = drawing.render()
    assert isinstance(shown, Content)
    pieces = [
        shown.plain[span.start : span.end]
        for span in shown.spans
        if isinstance(span.style, Style) and wanted(span.style)
    ]
    return [piece for piece in pieces if piece.startswith("│")]


def reversed_style(style: Style) -> bool:
    return bool(style.reverse)
