"""The Timeline tab: a thread branch's supersteps as a waterfall (`threads/timeline.py`).

One line per checkpoint, oldest at the top: step, the nodes that wrote it, how long they
ran, and a bar placed on a shared axis of running time — the longest superstep in bold
red, so the slow node is found at a glance. Time that was no node's (paused at a
breakpoint, editing a fork, between runs) is a dim line of its own, off the axis; a
checkpoint a person wrote shows `—`. Under a superstep whose run streamed in this session,
one line per node with its own span (parallel nodes side by side). Node names are
server text: cleaned, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.geometry import Size
from textual.widget import Widget

from agent_tui.threads.timeline import TimelineStep, format_duration, slowest, waited
from agent_tui.tui.widgets.text import server_text

LABEL_WIDTH = 28  # at most; a narrow view gives the bars the room first
LABEL_MIN_WIDTH = 8
STEP_WIDTH = 5
DURATION_WIDTH = 10
BAR_MIN_WIDTH = 20
MIN_WAIT_SHOWN = 0.5  # seconds: shorter gaps between runs are not worth a line


def _fit(text: Text, width: int) -> Text:
    text.truncate(width, overflow="ellipsis")
    text.pad_right(width - cell_len(text.plain))
    return text


def _bar(start: float, duration: float, total: float, width: int, style: str) -> Text:
    """`width` cells: blank up to `start`, then at least one block for `duration`."""
    scale = width / total if total > 0 else 0.0
    offset = min(width - 1, int(start * scale))
    length = max(1, min(width - offset, round(duration * scale)))
    bar = Text(" " * offset)
    bar.append("█" * length, style=style)
    return bar


def timeline_renderable(steps: Sequence[TimelineStep], width: int) -> Text:
    """The waterfall as one `Text`, for a view `width` cells wide."""
    if not steps:
        return Text("No checkpoints with times to show yet.", style="dim")
    fixed = STEP_WIDTH + DURATION_WIDTH + 4  # the separators too
    label_width = max(LABEL_MIN_WIDTH, min(LABEL_WIDTH, width - fixed - BAR_MIN_WIDTH))
    bar_width = max(BAR_MIN_WIDTH // 2, width - fixed - label_width)
    ends = [s.start + s.duration for s in steps] + [
        t.start + t.duration for s in steps for t in s.tasks
    ]
    total = max(ends) or 1.0
    worst = slowest(steps)
    text = Text(no_wrap=True, overflow="ignore")
    header = f"{'step':>{STEP_WIDTH}} {'nodes':<{label_width}} {'took':>{DURATION_WIDTH}}  "
    text.append(header + f"0 … {format_duration(total)}", style="bold")
    for step in steps:
        is_worst = worst is not None and step is worst
        style = "bold red" if is_worst else ("dim" if step.duration == 0 else "cyan")
        if step.waited >= MIN_WAIT_SHOWN:
            text.append("\n")
            text.append(" " * (STEP_WIDTH + 1))
            text.append(f"⋯ {format_duration(step.waited)} with nothing running", style="dim")
        text.append("\n")
        text.append(f"{'' if step.step is None else step.step:>{STEP_WIDTH}} ")
        text.append_text(
            _fit(server_text(step.label, style="bold" if is_worst else ""), label_width)
        )
        took = format_duration(step.duration) if step.timed else "—"
        text.append(f" {took:>{DURATION_WIDTH}}  ")
        text.append_text(_bar(step.start, step.duration, total, bar_width, style))
        for task in step.tasks:
            text.append("\n")
            text.append(" " * (STEP_WIDTH + 1))
            name = server_text(f"  {task.name}", style="red" if task.error else "dim")
            text.append_text(_fit(name, label_width))
            text.append(f" {format_duration(task.duration):>{DURATION_WIDTH}}  ")
            task_style = "red" if task.error else "green"
            text.append_text(_bar(task.start, task.duration, total, bar_width, task_style))
    paused = waited(steps)
    if worst is not None or paused >= MIN_WAIT_SHOWN:
        text.append("\n")
    if paused >= MIN_WAIT_SHOWN:
        text.append("\n")
        text.append(
            f"not counted: {format_duration(paused)} with nothing running"
            " (paused, editing, between runs)",
            style="dim",
        )
    if worst is not None:
        text.append("\n")
        text.append("slowest: ", style="dim")
        text.append_text(server_text(f"step {worst.step} {worst.label}", style="bold red"))
        text.append(
            f" ({format_duration(worst.duration)} of {format_duration(total)} running)",
            style="dim",
        )
    return text


class TimelineBody(Widget):
    """The waterfall, drawn at the width the layout gives the view: its width inside
    whatever scrollbars it really keeps. Drawn when the view is laid out, never from a
    size read before (a tab opening, a resize, a scrollbar coming or going), so it always
    fits the width the user sees. A line longer than that (a long node name in `slowest:`)
    makes it wider: the view scrolls sideways to it."""

    DEFAULT_CSS = """
    TimelineBody { width: auto; height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[TimelineStep] = []
        self._width = 0  # the view's width at the last layout
        self._drawn: tuple[int, Text] | None = None

    def show(self, steps: Sequence[TimelineStep]) -> None:
        self.steps = list(steps)
        self._drawn = None
        self.refresh(layout=True)

    def _drawing(self) -> Text:
        if self._drawn is None or self._drawn[0] != self._width:
            self._drawn = (self._width, timeline_renderable(self.steps, self._width))
        return self._drawn[1]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        self._width = container.width
        return max(container.width, *(cell_len(line) for line in self._lines()))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines())

    def _lines(self) -> list[str]:
        return self._drawing().plain.split("\n")

    def render(self) -> Text:
        return self._drawing()


class TimelineView(ScrollableContainer, can_focus=True):
    """Scrolls both ways; `show(steps)` replaces what it shows."""

    DEFAULT_CSS = """
    TimelineView { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[TimelineStep] = []

    def compose(self) -> ComposeResult:
        yield TimelineBody(id="timeline-body")

    def show(self, steps: Sequence[TimelineStep]) -> None:
        self.steps = list(steps)
        self.query_one(TimelineBody).show(self.steps)
