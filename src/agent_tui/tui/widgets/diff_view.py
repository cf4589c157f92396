"""A checkpoint diff (`checkpoint_diff.CheckpointDiff`) as coloured, inert text lines.

`+` lines are green, `-` red, `~` yellow; the header says which two checkpoints and why
(against the parent, or against the mark). The text comes from `CheckpointDiff.lines()`,
which has cleaned server text already; it is still rendered as `Text`, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent_tui.threads.checkpoint_diff import CheckpointDiff, summarize
from agent_tui.tui.widgets.text import server_text

LINE_STYLES = {"+": "green", "-": "red", "~": "yellow"}


def diff_text(diff: CheckpointDiff, heading: str = "") -> Text:
    text = Text()
    if heading:
        text.append_text(server_text(heading, style="bold"))
        text.append("\n")
    text.append_text(server_text(summarize(diff.values), style="bold"))
    text.append("\n\n")
    for line in diff.lines():
        style = LINE_STYLES.get(line.lstrip()[:1], "")
        if line.startswith(("a:", "b:", "values", "next", "written")):
            style = "bold" if not line.startswith("next") or diff.next_changed else ""
        text.append_text(server_text(line, style=style))
        text.append("\n")
    text.rstrip()
    return text


class DiffView(VerticalScroll):
    """Shows one diff; `diff` is the one shown (None: nothing to compare)."""

    DEFAULT_CSS = """
    DiffView { padding: 0 1; }
    DiffView > Static { width: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=True)
        self.diff: CheckpointDiff | None = None
        self._body = Static(Text("Nothing to compare yet", style="dim"), id="diff-body")

    def compose(self) -> ComposeResult:
        yield self._body

    @property
    def text(self) -> str:
        return str(self._body.render())

    def show(self, diff: CheckpointDiff, heading: str = "") -> None:
        self.diff = diff
        self._body.update(diff_text(diff, heading))

    def show_message(self, message: str) -> None:
        self.diff = None
        self._body.update(server_text(message, style="dim"))
