"""A layout rasterised to a grid of characters: boxes, lines, arrowheads.

Unicode box drawing by default, plain ASCII with `ascii=True`. A conditional edge is
dashed (`╎ ╌`, ASCII `: .`); where lines meet or cross, the junction is drawn (`┼ ├ ┬`
…, ASCII `+`), solid if any of its lines is. Every arrowhead points down into the top
of its target. Names were cleaned when the layout was made.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from rich.cells import cell_len

from agent_tui.graph_drawing.model import Box, Frame, Layout

N, E, S, W = 1, 2, 4, 8


@dataclass(frozen=True, slots=True)
class Glyphs:
    junctions: dict[int, str]
    dashed_vertical: str
    dashed_horizontal: str
    arrow: str
    box: tuple[str, str, str, str, str, str]  # ┌ ┐ └ ┘ ─ │
    small: str  # the ends of a one-row node
    frame: tuple[str, str, str, str, str, str]  # a subgraph's frame: ╭ ╮ ╰ ╯ ┈ ┊


def _junctions(chars: str) -> dict[int, str]:
    # Masks in this order: │ ─ ┌ ┐ └ ┘ ├ ┤ ┬ ┴ ┼
    masks = [N | S, E | W, S | E, S | W, N | E, N | W, N | S | E, N | S | W, S | E | W]
    masks += [N | E | W, N | E | S | W]
    table = dict(zip(masks, chars, strict=True))
    table[N] = table[S] = table[N | S]
    table[E] = table[W] = table[E | W]
    return table


UNICODE = Glyphs(
    _junctions("│─┌┐└┘├┤┬┴┼"),
    "╎",
    "╌",
    "▼",
    ("┌", "┐", "└", "┘", "─", "│"),
    "()",
    ("╭", "╮", "╰", "╯", "┈", "┊"),
)
ASCII = Glyphs(
    _junctions("|-+++++++++"),
    ":",
    ".",
    "v",
    ("+", "+", "+", "+", "-", "|"),
    "()",
    ("#", "#", "#", "#", "=", "!"),
)


def render(layout: Layout, *, ascii: bool = False) -> str:
    """The drawing, lines without trailing spaces."""
    if not layout.boxes:
        return "This graph has no nodes."
    return "\n".join(line.rstrip() for line in render_lines(layout, ascii=ascii))


def render_lines(layout: Layout, *, ascii: bool = False) -> list[str]:
    glyphs = ASCII if ascii else UNICODE
    masks: dict[tuple[int, int], int] = {}
    solid: set[tuple[int, int]] = set()
    arrows: set[tuple[int, int]] = set()

    def mark(cell: tuple[int, int], bits: int, dashed: bool) -> None:
        masks[cell] = masks.get(cell, 0) | bits
        if not dashed:
            solid.add(cell)

    for route in layout.routes:
        dashed = route.edge.conditional
        points = route.points
        mark(points[0], N, dashed)  # joined to the source's bottom
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            if ax == bx:
                step = 1 if by > ay else -1
                for y in range(ay, by + step, step):
                    if y == ay:
                        bits = S if step > 0 else N
                    elif y == by:
                        bits = N if step > 0 else S
                    else:
                        bits = N | S
                    mark((ax, y), bits, dashed)
            else:
                step = 1 if bx > ax else -1
                for x in range(ax, bx + step, step):
                    if x == ax:
                        bits = E if step > 0 else W
                    elif x == bx:
                        bits = W if step > 0 else E
                    else:
                        bits = E | W
                    mark((x, ay), bits, dashed)
        arrows.add(points[-1])

    grid = [[" "] * layout.width for _ in range(layout.height)]
    for (x, y), bits in masks.items():
        if (x, y) in arrows:
            grid[y][x] = glyphs.arrow
        elif (x, y) not in solid and bits & (E | W) == 0:
            grid[y][x] = glyphs.dashed_vertical
        elif (x, y) not in solid and bits & (N | S) == 0:
            grid[y][x] = glyphs.dashed_horizontal
        else:
            grid[y][x] = glyphs.junctions[bits]
    for frame in layout.frames:
        _draw_frame(grid, frame, glyphs, masks)
    for box in layout.boxes.values():
        _draw_box(grid, box, glyphs)
    return ["".join(row) for row in grid]


def _write(row: list[str], x: int, text: str) -> int:
    """Write `text` from column `x`; a wide character takes two cells (the second is
    left empty so the line keeps its width). The column after it."""
    for char in text:
        row[x] = char
        width = cell_len(char)
        if width == 2:
            row[x + 1] = ""
        x += max(width, 1)
    return x


def _draw_box(grid: list[list[str]], box: Box, glyphs: Glyphs) -> None:
    x, y, width = box.x, box.y, box.width
    if box.small:
        text = f"{glyphs.small[0]}{box.name}{glyphs.small[1]}"
        _write(grid[y], x + (width - cell_len(text)) // 2, text)
        return
    tl, tr, bl, br, horizontal, vertical = glyphs.box
    grid[y][x : x + width] = [tl, *([horizontal] * (width - 2)), tr]
    grid[y + 2][x : x + width] = [bl, *([horizontal] * (width - 2)), br]
    middle = grid[y + 1]
    middle[x : x + width] = [vertical, *([" "] * (width - 2)), vertical]
    inner = width - 2
    _write(middle, x + 1 + (inner - cell_len(box.name)) // 2, box.name)


def _draw_frame(
    grid: list[list[str]], frame: Frame, glyphs: Glyphs, lines: dict[tuple[int, int], int]
) -> None:
    """Under the edges: a cell an edge runs through keeps the edge (it enters the frame
    there). The subgraph's name on the top border (else the bottom), where no edge
    crosses it."""
    tl, tr, bl, br, horizontal, vertical = glyphs.frame
    left, top = frame.x, frame.y
    right, bottom = left + frame.width - 1, top + frame.height - 1
    border = {(left, top): tl, (right, top): tr, (left, bottom): bl, (right, bottom): br}
    for x in range(left + 1, right):
        border[(x, top)] = border[(x, bottom)] = horizontal
    for y in range(top + 1, bottom):
        border[(left, y)] = border[(right, y)] = vertical
    for (x, y), char in border.items():
        if (x, y) not in lines:
            grid[y][x] = char
    for label in (f" {frame.name} ", frame.name):  # the first place it fits
        for y in (top, bottom):
            starts = range(left + 1, right - cell_len(label) + 1)
            for start in sorted(starts, key=lambda x: (x != left + 2, x)):
                if not any((x, y) in lines for x in range(start, start + cell_len(label))):
                    _write(grid[y], start, label)
                    return
