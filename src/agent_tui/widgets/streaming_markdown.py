"""A `Markdown` widget that stays cheap to lay out while a long message streams in.

Textual re-arranges every direct child of a Markdown widget whenever its last block
grows: measured at ~0.3 ms per block per layout, so a 20,000-token answer (hundreds
of paragraphs) made each batch of tokens block the app for 150 ms and more. Here,
once `FREEZE_AT` top-level blocks are live, all but the last `KEEP_LIVE` are rebuilt
inside one `FrozenBlocks` container: its arrangement is cached (its children no longer
change), so each layout only measures a few dozen widgets however long the message.

Frozen blocks are re-parsed from their source lines, so they look like the blocks
they replace (same block classes, same CSS, links still post `LinkClicked` to this
widget). It is still one Markdown widget with one source.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from textual.await_complete import AwaitComplete
from textual.containers import Vertical
from textual.geometry import Size
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

FREEZE_AT = 32
KEEP_LIVE = 4


class FrozenBlocks(Vertical):
    """Finished top-level blocks of a `StreamingMarkdown`, laid out once."""

    DEFAULT_CSS = """
    FrozenBlocks { height: auto; }
    /* Markdown styles paragraphs as its direct children only. */
    FrozenBlocks > MarkdownParagraph { margin: 0 0 1 0; }
    """

    def __init__(self, *blocks: MarkdownBlock) -> None:
        super().__init__(*blocks)
        self._height_cache: tuple[tuple[int, int], int] | None = None

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Textual measures an auto-height container against its parent's height, which
        # grows with every streamed batch, so its own cache never hits. The frozen
        # blocks' height depends on the width alone.
        key = (width, len(self.children))
        if self._height_cache is not None and self._height_cache[0] == key:
            return self._height_cache[1]
        height = super().get_content_height(container, viewport, width)
        if all(child.is_mounted for child in self.children):
            self._height_cache = (key, height)
        return height


class StreamingMarkdown(Markdown):
    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)

        async def append_then_freeze() -> None:
            await appended
            await self._freeze_finished_blocks()

        return AwaitComplete(append_then_freeze())

    def update(self, markdown: str) -> AwaitComplete:
        groups = self.query_children(FrozenBlocks)
        updated = super().update(markdown)  # sets the source now, renders later

        async def update_then_drop_groups() -> None:
            await updated  # removes every MarkdownBlock, frozen ones included
            await groups.remove()

        return AwaitComplete(update_then_drop_groups())

    async def _freeze_finished_blocks(self) -> None:
        async with self.lock:
            live = [child for child in self.children if isinstance(child, MarkdownBlock)]
            if len(live) < FREEZE_AT:
                return
            finished, first_live = live[:-KEEP_LIVE], live[-KEEP_LIVE]
            start, end = finished[0].source_range[0], first_live.source_range[0]
            if end <= start:  # ranges not known: leave the blocks as they are
                return
            lines = self.source.splitlines(keepends=True)[start:end]
            parser = (
                MarkdownIt("gfm-like") if self._parser_factory is None else self._parser_factory()
            )
            blocks = list(self._parse_markdown(parser.parse("".join(lines))))
            for block in blocks:
                block_start, block_end = block.source_range
                block.source_range = (block_start + start, block_end + start)
            with self.app.batch_update():
                await self.mount(FrozenBlocks(*blocks), before=finished[0])
                await self.remove_children(finished)
