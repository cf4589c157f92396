"""The AI message block: its label, its text as one `MarkdownText`, its tool calls.

Tokens arrive far faster than anything can be drawn (about 20 appends a second, see
docs/server-quirks.md), so the block never draws per token: `TranscriptView` marks it
dirty on each `Appended` and calls `flush()` at most ~20 times a second, which hands the
text so far to the `MarkdownText`; that draws only the blocks of Markdown that changed,
off the caller's path (`markdown_text.py`).

What is new is read from `item.text` itself (everything past what was already
written), not from the `Appended` deltas: the model mutates the item in place, so a
block created late already sees text that earlier deltas carried, and counting the
deltas again would duplicate them.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from agent_tui.chat.item_text import compact_json
from agent_tui.chat.items import AIItem
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.chat.blocks import BlockText, ChatBlock, block_label
from agent_tui.tui.chat.markdown_text import MarkdownText
from agent_tui.tui.widgets.text import server_text


class AIBlock(ChatBlock):
    DEFAULT_CSS = """
    /* The bar ends with the text (or its tool calls): the blank line below is the
       block's margin, outside it, as for every block. The tool-calls line is hidden
       while there are none. */
    AIBlock { border-left: thick $success; }
    AIBlock > .tool-calls { color: $text-accent; }
    AIBlock.empty > MarkdownText { display: none; }
    """

    KIND = "AI message"

    item: AIItem

    def __init__(self, item: AIItem) -> None:
        super().__init__(item)
        # The raw text already handed to the text widget (a reference, not a copy), and
        # what it was cleaned into: a growing text is cleaned only where it grew.
        self._written = item.text
        self._cleaned = clean_text(item.text)
        self.stream_writes = 0
        """How many times streamed text was handed to the text widget."""
        self._shown_label = self._shown_calls = Text()  # as composed, then as updated

    @property
    def text_view(self) -> MarkdownText:
        return self.query_one(".ai-text", MarkdownText)

    @property
    def shown_text(self) -> str:
        """The (clean) text the message shows now; "" before it is composed."""
        texts = self.query(".ai-text").results(MarkdownText)
        return next((view.text for view in texts), "")

    @property
    def has_unwritten_text(self) -> bool:
        return len(self.item.text) > len(self._written)

    def compose_item(self) -> ComposeResult:
        self.set_class(not self._written, "empty")
        self._shown_label, self._shown_calls = self._label(), self._tool_calls()
        yield BlockText(self._shown_label, classes="block-label")
        yield MarkdownText(self._cleaned, classes="ai-text")
        tool_calls = BlockText(self._shown_calls, classes="tool-calls")
        tool_calls.display = bool(self.item.tool_calls)
        yield tool_calls

    def _label(self) -> Text:
        item = self.item
        label = block_label("ai", item.node, namespace=item.namespace)
        if item.streaming:
            label.append(" …", style="dim")
        return label

    def _tool_calls(self) -> Text:
        lines = Text()
        for index, call in enumerate(self.item.tool_calls):
            if index:
                lines.append("\n")
            lines.append("→ ", style="dim")
            lines.append_text(server_text(call.name, style="bold"))
            lines.append_text(server_text(f"({compact_json(call.args)})"))
        return lines

    def flush(self) -> None:
        """Hand the text that arrived since the last flush to the text widget."""
        if self.broken or not self.drawn:
            return
        text = self.item.text
        if len(text) <= len(self._written) or not text.startswith(self._written):
            return
        try:
            self._write(text, self._cleaned + clean_text(text[len(self._written) :]))
        except Exception as error:
            self.call_later(self.show_failure, error)
            return
        self.stream_writes += 1

    def _write(self, text: str, cleaned: str) -> None:
        self._written, self._cleaned = text, cleaned
        self.set_class(not cleaned, "empty")
        self.text_view.show(cleaned)

    def refresh_item(self) -> None:
        self.call_later(self.sync_item)

    def sync_item(self) -> None:
        """Show an `Updated` item: label, tool calls and its text (whole, when it is not
        the text shown grown). Does nothing on a block not drawn yet or being removed
        (see `drawn`)."""
        if self.broken or not self.drawn:
            return
        try:
            self._sync()
        except Exception as error:
            self.call_later(self.show_failure, error)

    def _sync(self) -> None:
        item = self.item
        # Only what changed: `Static.update` lays the whole screen out again, and a
        # streaming message is synced on every batch that re-shows it whole.
        label, calls = self._label(), self._tool_calls()
        if label != self._shown_label:
            self._shown_label = label
            self.query_one(".block-label", Static).update(label)
        if calls != self._shown_calls:
            self._shown_calls = calls
            tool_calls = self.query_one(".tool-calls", Static)
            tool_calls.update(calls)
            tool_calls.display = bool(item.tool_calls)
        if item.text.startswith(self._written):
            self.flush()
        else:
            self._write(item.text, clean_text(item.text))

    async def on_markdown_text_failed(self, message: MarkdownText.Failed) -> None:
        message.stop()
        await self.show_failure(message.error)
