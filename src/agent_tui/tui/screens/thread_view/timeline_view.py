"""The Timeline tab: a thread branch's supersteps as a waterfall (`threads/timeline.py`).

One line per checkpoint, oldest at the top: step, the nodes that wrote it, how long they
ran, and a bar placed on a shared axis of running time — the longest superstep in bold
red, so the slow node is found at a glance. Time that was no node's (paused at a
breakpoint, editing a fork, between runs) is a dim line of its own, off the axis; a
checkpoint a person wrote shows `—`. Under a superstep whose run streamed in this session,
one line per node with its own span (parallel nodes side by side); under a superstep whose
run was traced here, one `◇` line per model call with its own bar. Node names are
server text: cleaned, never markup. The bars span the width the view has when painted
(`TimelineBody`), so it fits as the tab opens, after a resize and beside a scrollbar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.geometry import Size
from textual.visual import visualize
from textual.widget import Widget

from agent_tui.threads.timeline import TimelineStep, format_duration, slowest, waited
from agent_tui.threads.timeline_calls import CallSpan
from agent_tui.tui.widgets.text import server_text

LABEL_WIDTH = 28  # at most; a narrow view gives the bars the room first
LABEL_MIN_WIDTH = 8
STEP_WIDTH = 5
DURATION_WIDTH = 10
BAR_MIN_WIDTH = 20
MODEL_MARK = "◇"  # a model call's line, under its node
MODEL_STYLE = "magenta"
MIN_WAIT_SHOWN = 0.5  # seconds: shorter gaps between runs are not worth a line
# The narrowest waterfall: every row fits it; a narrower view scrolls sideways to it.
MIN_WIDTH = STEP_WIDTH + LABEL_MIN_WIDTH + DURATION_WIDTH + 4 + BAR_MIN_WIDTH // 2


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


def timeline_renderable(
    steps: Sequence[TimelineStep],
    width: int,
    calls: Mapping[str, Sequence[CallSpan]] | None = None,
) -> Text:
    """The waterfall as one `Text`, for a view `width` cells wide; `calls`: the traced
    model calls of each superstep (`threads.timeline_calls`), a bar each under it."""
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
    # Each row fits `width`; the lines under them wrap (a long node name folds).
    text = Text(overflow="fold")
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
        for call in (calls or {}).get(step.checkpoint_id, ()):
            text.append("\n")
            text.append(" " * (STEP_WIDTH + 1))
            label = server_text(f"  {MODEL_MARK} {call.model}", style="red" if call.error else "")
            text.append_text(_fit(label, label_width))
            text.append(f" {format_duration(call.duration):>{DURATION_WIDTH}}  ")
            call_style = "red" if call.error else MODEL_STYLE
            text.append_text(_bar(call.start, call.duration, total, bar_width, call_style))
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
    """The waterfall, drawn at the width it is laid out at: the view's width inside the
    scrollbars it keeps (at least `MIN_WIDTH`, then the view scrolls sideways). Drawn when
    painted, never from a size read before, so a tab opening, a resize or a scrollbar
    coming or going always ends with bars that span the width the user sees. The lines
    under the bars (`slowest:`, `not counted:`) wrap rather than widen it."""

    DEFAULT_CSS = f"""
    TimelineBody {{ width: 1fr; min-width: {MIN_WIDTH}; height: auto; }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[TimelineStep] = []
        self.calls: Mapping[str, Sequence[CallSpan]] = {}
        self._drawn: tuple[int, Text] | None = None

    def show(self, steps: Sequence[TimelineStep], calls: Mapping[str, Sequence[CallSpan]]) -> None:
        self.steps = list(steps)
        self.calls = calls
        self._drawn = None
        self.refresh(layout=True)

    def _drawing(self, width: int) -> Text:
        if self._drawn is None or self._drawn[0] != width:
            self._drawn = (width, timeline_renderable(self.steps, width, self.calls))
        return self._drawn[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Measured at the width it is being laid out at, not the one it was last painted
        # at. (Textual passes a widget's styles as the rules, as here; typed otherwise.)
        visual = visualize(self, self._drawing(width))
        return visual.get_height(self.styles, width)  # type: ignore[arg-type]

    def render(self) -> Text:
        return self._drawing(self.content_size.width)


class TimelineView(ScrollableContainer, can_focus=True):
    """Scrolls down a long branch (sideways only when narrower than `MIN_WIDTH`);
    `show(steps)` replaces what it shows."""

    DEFAULT_CSS = """
    TimelineView { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[TimelineStep] = []
        self.calls: dict[str, Sequence[CallSpan]] = {}
        # Made here, not in compose: the tab is built when first shown, and drawn into
        # before it is mounted.
        self._body = TimelineBody(id="timeline-body")

    def compose(self) -> ComposeResult:
        yield self._body

    def show(
        self,
        steps: Sequence[TimelineStep],
        calls: Mapping[str, Sequence[CallSpan]] | None = None,
    ) -> None:
        """Draw `steps`, with the model calls of each (by checkpoint id) under it."""
        self.steps = list(steps)
        self.calls = dict(calls or {})
        self._body.show(self.steps, self.calls)
