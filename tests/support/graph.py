"""Reading a drawn graph (`tui/widgets/graph_view.py`) as the user sees it: which boxes
are shown in which style."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.style import Style
from textual.widgets import Static


def styled_pieces(drawing: Static, wanted: Callable[[Style], bool]) -> list[str]:
    """The pieces of the drawing shown in a style `wanted` accepts."""
    shown = drawing.render()
    assert isinstance(shown, Content)
    return [
        shown.plain[span.start : span.end]
        for span in shown.spans
        if isinstance(span.style, Style) and wanted(span.style)
    ]


def boxes_styled(drawing: Static, wanted: Callable[[Style], bool]) -> list[str]:
    """The middle lines (`│ name │`) of the boxes shown in a style `wanted` accepts."""
    return [piece for piece in styled_pieces(drawing, wanted) if piece.startswith("│")]


def reversed_style(style: Style) -> bool:
    return bool(style.reverse)


def top_border(plain: str, name: str) -> str:
    """The top border of the box named `name` in a drawing (where its marks are)."""
    lines = plain.splitlines()
    middle = f"│ {name} │"
    for index, line in enumerate(lines):
        at = line.find(middle)
        if at > 0 or (at == 0 and index):
            return lines[index - 1][at : at + len(middle)]
    raise AssertionError(f"no box {name!r} in:\n{plain}")


def bottom_border(plain: str, name: str) -> str:
    lines = plain.splitlines()
    middle = f"│ {name} │"
    for index, line in enumerate(lines):
        at = line.find(middle)
        if at >= 0 and index + 1 < len(lines):
            return lines[index + 1][at : at + len(middle)]
    raise AssertionError(f"no box {name!r} in:\n{plain}")
