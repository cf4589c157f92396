"""Two revisions of a deployment side by side: config changes and secret names (a modal).

The text comes from `revision_diff.RevisionDiff.lines()` (names only, never a secret
value) and is rendered inertly: `+` green, `-` red, `~` yellow.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.deployments.revision_diff import RevisionDiff
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.diff_view import LINE_STYLES
from agent_tui.tui.widgets.text import server_text


def revision_diff_text(diff: RevisionDiff, heading: str = "") -> Text:
    text = Text()
    if heading:
        text.append_text(server_text(heading, style="bold"))
        text.append("\n")
    text.append_text(server_text(diff.summary(), style="bold"))
    text.append("\n\n")
    for line in diff.lines():
        mark = line.lstrip()[:1]
        style = LINE_STYLES.get(mark, "")
        if line.startswith(("a:", "b:", "source_revision_config", "secrets")):
            style = "bold"
        elif mark == "=":
            style = "dim"
        text.append_text(server_text(line, style=style))
        text.append("\n")
    text.rstrip()
    return text


class RevisionDiffScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    RevisionDiffScreen { align: center middle; }
    RevisionDiffScreen > Vertical {
        width: 90%; height: 80%; border: thick $primary; background: $surface;
    }
    RevisionDiffScreen #revision-diff-title {
        text-style: bold; padding: 0 1; background: $primary 30%;
    }
    RevisionDiffScreen VerticalScroll { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,q,d", "dismiss", "Close", id="revision_diff.close"),
    ]

    def __init__(self, diff: RevisionDiff, *, title: str, heading: str = "") -> None:
        super().__init__()
        self.diff = diff
        self.heading = title
        self.subheading = heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), id="revision-diff-title")
            with VerticalScroll(can_focus=True):
                yield Static(revision_diff_text(self.diff, self.subheading), id="revision-diff")
        yield Footer()

    @property
    def text(self) -> str:
        return str(self.query_one("#revision-diff", Static).render())

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
