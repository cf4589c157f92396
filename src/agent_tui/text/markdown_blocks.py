"""A Markdown text cut into its top-level blocks, kept up to date as the text grows (headless).

A streaming answer changes only at its end: every top-level block (paragraph, list, code
fence, table…) but the last is finished. So `MarkdownBlocks.update` parses again only
from the start of the last block that may have changed, and a drawing that keeps what it
drew per block source draws only what is new (`tui/chat/markdown_text.py`).

A text replaced rather than grown (the middle of a long streaming message dropped, the
final text differs) keeps the blocks it starts with, and parses the rest.

The blocks are cut where markdown-it starts a top-level block, so each block's source
runs from its first line to the next block's first line (blank lines included) and the
blocks joined are the text, exactly. A block is then drawn on its own: reference-style
link definitions in another block do not apply to it (a model hardly writes them).
"""

from __future__ import annotations

from markdown_it import MarkdownIt


def block_parser() -> MarkdownIt:
    """The parser of the drawing: Rich's Markdown's (CommonMark with strikethrough and
    tables), so that blocks are cut where Rich sees them."""
    return MarkdownIt().enable("strikethrough").enable("table")


# Only the block structure matters for cutting: inline parsing (half the time) is skipped.
_CUTTER = block_parser().disable("inline")


def split_blocks(text: str) -> list[str]:
    """`text` cut into the sources of its top-level blocks ("".join(result) == text)."""
    if not text:
        return []
    starts = [
        token.map[0]
        for token in _CUTTER.parse(text)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]
    blocks: list[str] = []
    offset, line = 0, 0
    for start in starts[1:]:
        end = offset
        while line < start:  # the offset of line `start` (markdown-it cuts at \n only)
            end = text.index("\n", end) + 1
            line += 1
        if end > offset:
            blocks.append(text[offset:end])
        offset = end
    blocks.append(text[offset:])
    return blocks


class MarkdownBlocks:
    """The top-level blocks of a text that is updated again and again."""

    def __init__(self) -> None:
        self.text = ""
        self.blocks: list[str] = []
        self.parsed_chars = 0
        """Characters parsed by the updates so far (for tests: growth parses the tail)."""

    def update(self, text: str) -> list[str]:
        """The blocks of `text`, parsing only what may differ from the previous text."""
        if text == self.text:
            return self.blocks
        kept, offset = 0, 0
        # Every block but the last is finished where the text still holds it: what
        # follows it starts a new block. The last one may go on: it is parsed again.
        for block in self.blocks[:-1]:
            if not text.startswith(block, offset):
                break
            kept += 1
            offset += len(block)
        rest = text[offset:]
        self.parsed_chars += len(rest)
        self.blocks = self.blocks[:kept] + split_blocks(rest)
        self.text = text
        return self.blocks
