"""A `Markdown` widget that stays cheap to lay out while a long message streams in.

Textual walks and re-arranges every widget of the screen on each layout, and a Markdown
widget has one widget per block (paragraph, list item, code fence…). Measured on a
20,000-token answer: ~0.3 ms per block per layout, so once the answer had hundreds of
paragraphs each batch of tokens blocked the app for 150 ms and more (and the garbage
collector's pauses grew with the widget count).

So once `FREEZE_AT` top-level blocks are live, all but the last `KEEP_LIVE` (which the
stream may still change) are replaced by ONE `FrozenMarkdown` widget that renders
their source with Rich's Markdown renderer: a few widgets per long message instead of
hundreds, and a fixed layout cost per batch however long the answer grows. The frozen
part looks slightly different (Rich's styles) and its links are plain text with the
URL shown (`hyperlinks=False`: nothing there can be opened by a click); it is still
one Markdown widget with one source. `update()` (a whole new text) renders with
Textual's blocks, then freezes the same way.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from rich.markdown import Markdown as RichMarkdown
from textual.await_complete import AwaitComplete
from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownBlock

FREEZE_AT = 32
KEEP_LIVE = 4


class FrozenMarkdown(Static):
    """Finished top-level blocks of a `StreamingMarkdown`, as one widget."""

    DEFAULT_CSS = """
    FrozenMarkdown { height: auto; margin: 0 0 1 0; }
    """

    def __init__(self, source: str) -> None:
        # The source was cleaned by the caller; Rich's Markdown never parses markup.
        super().__init__(RichMarkdown(source, hyperlinks=False, code_theme="ansi_dark"))
        self.source = source


_parser: MarkdownIt | None = None


def shared_parser() -> MarkdownIt:
    """One parser for every streaming message: Textual's Markdown builds a new one
    (compiling its rules) for each append, garbage that a long stream made by the
    megabyte. Parsing keeps its state outside the parser, so one can serve all."""
    global _parser
    if _parser is None:
        _parser = MarkdownIt("gfm-like")
    return _parser


class StreamingMarkdown(Markdown):
    def __init__(self, markdown: str | None = None, **options: Any) -> None:
        options.setdefault("parser_factory", shared_parser)
        super().__init__(markdown, **options)

    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)

        async def append_then_freeze() -> None:
            await appended
            await self._freeze_finished_blocks()

        return AwaitComplete(append_then_freeze())

    def update(self, markdown: str) -> AwaitComplete:
        frozen = self.query_children(FrozenMarkdown)
        updated = super().update(markdown)  # sets the source now, renders later

        async def update_then_drop_frozen() -> None:
            await updated
            await frozen.remove()
            # A long message loaded whole (a thread's history, a final text that
            # differs from the streamed one) is kept as light as a streamed one.
            await self._freeze_finished_blocks()

        return AwaitComplete(update_then_drop_frozen())

    @property
    def frozen_count(self) -> int:
        """How many frozen groups the message has (for tests and benchmarks)."""
        return len(self.query_children(FrozenMarkdown))

    async def _freeze_finished_blocks(self) -> None:
        async with self.lock:
            live = [child for child in self.children if isinstance(child, MarkdownBlock)]
            if len(live) < FREEZE_AT:
                return
            finished, first_live = live[:-KEEP_LIVE], live[-KEEP_LIVE]
            start, end = finished[0].source_range[0], first_live.source_range[0]
            if end <= start:  # ranges not known: leave the blocks as they are
                return
            source = "".join(self.source.splitlines(keepends=True)[start:end])
            with self.app.batch_update():
                await self.mount(FrozenMarkdown(source), before=finished[0])
                await self.remove_children(finished)
