"""Small questions the thread view asks: which node a fork writes as, which file to use."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.inert import Input, Select
from agent_tui.tui.widgets.text import server_text

_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 72; height: auto; border: thick $primary; background: $surface; padding: 0 1;
}}
{name} .modal-title {{ text-style: bold; margin-bottom: 1; }}
{name} .modal-hint {{ color: $text-muted; margin-top: 1; }}
"""


class AsNodeScreen(ModalScreen[str | None]):
    """Pick the node a fork's update is written as; answers the node or None (esc)."""

    DEFAULT_CSS = _CSS.format(name="AsNodeScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("ctrl+s", "accept", "Fork", priority=True, id="as_node.accept"),
        Binding("escape", "cancel", "Cancel", id="as_node.cancel"),
    ]

    def __init__(self, nodes: list[str], default: str | None, *, step: int | None) -> None:
        super().__init__()
        self.nodes = nodes
        self.default = default if default in nodes else (nodes[0] if nodes else None)
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical():
            where = "—" if self.step is None else str(self.step)
            yield Static(server_text(f"Fork at step {where}: write as node"), classes="modal-title")
            yield Select(
                [(server_text(node), node) for node in self.nodes],
                value=self.default if self.default is not None else Select.BLANK,
                allow_blank=self.default is None,
                id="as-node",
            )
            yield Static(
                "The update goes through the graph as if this node had written it, so what runs "
                "next follows from it. ctrl+s forks · esc cancels",
                classes="modal-hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Select).focus()

    def action_accept(self) -> None:
        value = self.query_one(Select).value
        self.dismiss(value if isinstance(value, str) else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PathScreen(ModalScreen[str | None]):
    """Ask for a file path (where to write an export, which export to import); answers
    the path or None (esc)."""

    DEFAULT_CSS = _CSS.format(name="PathScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "cancel", "Cancel", id="export_path.cancel"),
    ]

    def __init__(self, default: str, *, title: str, hint: str) -> None:
        super().__init__()
        self.default = default
        self.heading = title
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_text(self.heading), classes="modal-title")
            yield Input(self.default, id="path")
            yield Static(server_text(self.hint), classes="modal-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if path:
            self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
