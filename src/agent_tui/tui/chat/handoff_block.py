"""The block of a multi-agent handoff: `→ hotel_assistant`, where another tool's block
reads `tool · transfer_to_hotel_assistant success` (`chat.tool_results` says which tool
results are handoffs). Its fixed text ("Successfully transferred to …") says nothing more."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from agent_tui.chat.items import ToolResultItem
from agent_tui.tui.chat.blocks import ChatBlock, block_label
from agent_tui.tui.widgets.text import server_text


class HandoffBlock(ChatBlock):
    DEFAULT_CSS = """
    HandoffBlock { border-left: thick $accent; }
    HandoffBlock > .handoff { color: $text-accent; }
    """

    item: ToolResultItem

    def compose(self) -> ComposeResult:
        label = Text.assemble(
            Text("→ ", style="bold"),
            server_text(self.item.handoff, style="bold"),
            block_label("", namespace=self.item.namespace),  # where it happened, if nested
        )
        yield Static(label, classes="handoff")
