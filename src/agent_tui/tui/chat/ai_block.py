"""The AI message block: one `Markdown` per message, streamed in batches.

Tokens arrive far faster than Markdown can re-layout (about 20 appends a second, see
docs/server-quirks.md), so the block never writes per token: `TranscriptView` marks it dirty on
each `Appended` and calls `flush()` at most ~20 times a second, which hands everything
new to a `MarkdownStream` in one write.

What is new is read from `item.text` itself (everything past what was already
written), not from the `Appended` deltas: the model mutates the item in place, so a
block created late already sees text that earlier deltas carried, and counting the
deltas again would duplicate them.
"""

from __future__ import annotations

import asyncio
import contextlib

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from agent_tui.chat.item_text import compact_json
from agent_tui.chat.items import AIItem
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.chat.blocks import ChatBlock, block_label
from agent_tui.tui.chat.streaming_markdown import StreamingMarkdown
from agent_tui.tui.widgets.text import server_text


class AIBlock(ChatBlock):
    DEFAULT_CSS = """
    /* No margin below: the last paragraph brings its own (a :last-child rule would
       restyle every paragraph each time one is added). The tool-calls line is hidden
       while there are none, or it would add a second blank line inside the bar. */
    AIBlock { border-left: thick $success; margin-bottom: 0; }
    AIBlock > Markdown { height: auto; margin: 0; padding: 0; background: transparent; }
    AIBlock > .tool-calls { color: $text-accent; }
    AIBlock.empty > Markdown { display: none; }
    """

    KIND = "AI message"

    item: AIItem

    def __init__(self, item: AIItem) -> None:
        super().__init__(item)
        # The raw text already handed to the Markdown widget (a reference, not a copy).
        self._written = item.text
        self._stream: MarkdownStream | None = None
        # Flushes (timer) and the final sync (Updated) must not interleave.
        self._lock = asyncio.Lock()
        self.stream_writes = 0
        """How many times streamed text was written to the Markdown widget."""

    @property
    def markdown(self) -> Markdown:
        return self.query_one(".ai-text", Markdown)

    @property
    def has_unwritten_text(self) -> bool:
        return len(self.item.text) > len(self._written)

    def compose_item(self) -> ComposeResult:
        self.set_class(not self._written, "empty")
        yield Static(self._label(), classes="block-label")
        yield StreamingMarkdown(clean_text(self._written), open_links=False, classes="ai-text")
        tool_calls = Static(self._tool_calls(), classes="tool-calls")
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

    async def flush(self) -> None:
        """Write the text that arrived since the last flush, in one stream write."""
        if self.broken or not self.drawn:
            return
        try:
            async with self._lock:
                await self._flush_locked()
        except Exception as error:
            await self._stop_stream_quietly()
            await self.show_failure(error)

    async def _flush_locked(self) -> None:
        text = self.item.text
        if len(text) <= len(self._written) or not self.drawn:
            return
        fresh = text[len(self._written) :]
        self._written = text
        if self._stream is None:
            self.remove_class("empty")
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(clean_text(fresh))
        self.stream_writes += 1

    def refresh_item(self) -> None:
        self.call_later(self.sync_item)

    async def sync_item(self) -> None:
        """Show an `Updated` item: label and tool calls; once the message is complete,
        stop the stream and replace the text once if the final text differs.
        Does nothing on a block not drawn yet or being removed (see `drawn`)."""
        if self.broken or not self.drawn:
            return
        try:
            await self._sync()
        except Exception as error:
            await self._stop_stream_quietly()
            await self.show_failure(error)

    async def _sync(self) -> None:
        item = self.item
        self.query_one(".block-label", Static).update(self._label())
        tool_calls = self.query_one(".tool-calls", Static)
        tool_calls.update(self._tool_calls())
        tool_calls.display = bool(item.tool_calls)
        async with self._lock:
            if not self.drawn:  # removed while a flush held the lock
                return
            replaced = not item.text.startswith(self._written)
            if not replaced:
                await self._flush_locked()
            if item.streaming and not replaced:
                return
            await self._stop_stream()
            final = clean_text(item.text)
            self._written = item.text
            self.set_class(not final, "empty")
            if self.markdown.source != final:
                await self.markdown.update(final)

    async def _stop_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    async def _stop_stream_quietly(self) -> None:
        # Text the stream still holds may fail to land in a Markdown being removed (or
        # one that failed); nobody sees it.
        if self._stream is not None:
            stream, self._stream = self._stream, None
            with contextlib.suppress(Exception):
                await stream.stop()

    async def on_unmount(self) -> None:
        # A cleared transcript removes blocks mid-stream: end the stream's task.
        await self._stop_stream_quietly()
