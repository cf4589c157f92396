"""A drawing (`graph_drawing.render_lines`) as one Rich `Text`, with a run's marks on top.

The headless drawing stays as it is; this colours it and writes short marks into the
boxes' borders, where no edge runs (edges end above a box and leave below it):

- top border: `●` a breakpoint before the node, `▶` running now, `✓2 268 ms` ran second
  in this run (for 268 ms), `‖` paused before it, `?` an `interrupt()` waits in it;
- bottom border: `●` a breakpoint after the node, `‖` paused after it;
- the whole box: coloured by the same (running green, paused yellow, ran dim green, the
  checkpoint picked in the history magenta) and reversed under the cursor.

A mark is a glyph as well as a colour, so it shows without colour too. Names were
cleaned when the layout was made; a `Text` is never read as markup.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from agent_tui.graph_drawing import Box, Layout, render_lines
from agent_tui.graph_drawing.live import (
    NodeMarks,
    NodeRun,
    ran_as_drawn,
    running_as_drawn,
    shown_as,
)
from agent_tui.threads.timeline import format_duration

RUNNING = Style(bold=True, color="black", bgcolor="green")
PAUSED = Style(bold=True, color="black", bgcolor="yellow")
STEP = Style(bold=True, color="magenta")
RAN = Style(color="green")
BREAKPOINT = Style(bold=True, color="red")
SELECTED = Style(reverse=True, bold=True)


class _Shown:
    """The marks as the boxes drawn: a collapsed subgraph's box carries its nodes'."""

    def __init__(
        self, marks: NodeMarks, expanded: Iterable[str] | None, boxes: Iterable[str]
    ) -> None:
        opened = None if expanded is None else frozenset(expanded)
        drawn = frozenset(boxes)

        def box(node: str) -> str:
            return shown_as(node, opened)

        self.running = set(running_as_drawn(marks.running, opened, drawn))
        self.step = {box(node) for node in marks.step}
        self.before = {box(node) for node in marks.before}
        self.after = {box(node) for node in marks.after}
        self.paused = {box(node): side for node, side in marks.paused.items()}
        # The boxes drawn, numbered as the pane's status line counts them.
        self.ran: dict[str, NodeRun] = ran_as_drawn(marks.ran, opened, drawn)

    def style(self, node: str) -> Style | None:
        if node in self.running:
            return RUNNING
        if node in self.paused:
            return PAUSED
        if node in self.step:
            return STEP
        return RAN if node in self.ran else None

    def top(self, node: str, room: int | None = None) -> str:
        """The marks on the node's top border; the run's time is left out when it does
        not fit in `room` cells (`✓1`, never a cut `✓1 0.`)."""
        text = "●" if node in self.before else ""
        if node in self.running:
            text += "▶"
        pause = self.paused.get(node)
        if pause == "before":
            text += "‖"
        elif pause == "asks":
            text += "?"
        run = self.ran.get(node)
        if run is not None and node not in self.running:
            took = "" if run.seconds is None else format_duration(run.seconds)
            timed = f"✓{run.order} {took}".rstrip()  # as the Timeline says it
            fits = room is None or len(text) + len(timed) <= room
            text += timed if fits else f"✓{run.order}"
        return text

    def bottom(self, node: str) -> str:
        text = "●" if node in self.after else ""
        return text + ("‖" if self.paused.get(node) == "after" else "")


def _cells(line: str) -> list[str]:
    """A drawn line as cells: a wide character is followed by an empty cell."""
    if cell_len(line) == len(line):
        return list(line)  # no wide character: the usual case
    cells: list[str] = []
    for char in line:
        cells.append(char)
        if cell_len(char) == 2:
            cells.append("")
    return cells


_last: list[tuple[Layout, list[list[str]]]] = []  # the grid of the layout painted last


def _grid(layout: Layout) -> list[list[str]]:
    """The layout's cells, drawn once: a redraw (new marks, the cursor moved) paints on
    a copy of them."""
    if not _last or _last[0][0] is not layout:
        _last[:] = [(layout, [_cells(line) for line in render_lines(layout)])]
    return _last[0][1]


def _write(cells: list[str], x: int, end: int, text: str) -> None:
    """`text` into `cells[x:end]`, cut to fit (marks are one cell a character)."""
    for offset, char in enumerate(text[: max(0, end - x)]):
        cells[x + offset] = char


def _offset(cells: list[str], column: int) -> int:
    return sum(len(cell) for cell in cells[:column])


def paint(
    layout: Layout,
    marks: NodeMarks | None = None,
    *,
    expanded: Iterable[str] | None = None,
    selected: str | None = None,
) -> Text:
    """The drawing as one `Text`: dashed lines yellow, arrowheads bold, the marks (see
    the module docstring) and the box under the cursor (`selected`)."""
    rows = [list(cells) for cells in _grid(layout)]
    shown = _Shown(marks or NodeMarks(), expanded, (box.node for box in layout.boxes.values()))
    styled: list[tuple[Box, Style]] = []
    for box in layout.boxes.values():
        style = shown.style(box.node)
        if box.node == selected:
            style = style + SELECTED if style else SELECTED
        if style is not None:
            styled.append((box, style))
        if box.small:
            continue
        inner = (box.x + 1, box.x + box.width - 1)
        _write(rows[box.y], *inner, shown.top(box.node, inner[1] - inner[0]))
        _write(rows[box.y + box.height - 1], *inner, shown.bottom(box.node))
    lines = ["".join(cells).rstrip() for cells in rows]
    text = Text("\n".join(lines), no_wrap=True, overflow="ignore")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def stylize(style: Style, y: int, left: int, right: int) -> None:
        """Columns `left` to `right` of line `y` (no further than its end)."""
        cells = rows[y]
        begin, end = _offset(cells, left), min(_offset(cells, right), len(lines[y]))
        if begin < end:
            text.stylize(style, starts[y] + begin, starts[y] + end)

    for box, style in styled:
        for y in range(box.y, box.y + box.height):
            stylize(style, y, box.x, box.x + box.width)
    for box in layout.boxes.values():
        for y, side in ((box.y, shown.before), (box.y + box.height - 1, shown.after)):
            if box.node in side and not box.small:
                stylize(BREAKPOINT, y, box.x + 1, box.x + 2)
    text.highlight_regex("[╎╌]+", "yellow")
    text.highlight_regex("▼", "bold")
    return text
