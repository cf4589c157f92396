"""Markdown drawn into lines (lists of Rich `Segment`s), one top-level block at a time, as
Rich draws it.

`draw_block` draws one block of a text cut by `text.markdown_blocks`; `join_blocks` puts
drawn blocks together as Rich's Markdown would have drawn the whole text (one blank line
between blocks, none after a rule). So a text that changes only at its end is drawn
again only there (`markdown_text.MarkdownText`).

The source must be clean (`clean_text`): Rich's Markdown never parses console markup. A
link is drawn as its text with its target in the style's meta (`LINK_META`), not as a
terminal hyperlink: a click on it is for the app to judge.

A line is kept as Rich drew it, a list of segments, not as Textual's `Strip`: a strip
carries seven caches of its own (16 objects a line before it holds anything), and a
styled copy of it stays in its cache once drawn. A long chat's transcript holds thousands
of lines; as strips, a token flood kept 17,000 of them alive (a third of the Python
objects it added, and the memory arenas they held after the chat was left). The widget
makes a strip of a line when Textual asks for it (`MarkdownText.render_line`), and
Textual keeps that one while the line is on screen.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style

from agent_tui.text.markdown_blocks import block_parser

Line = list[Segment]
"""A drawn line: never changed once drawn (a line unchanged is the same object)."""

CODE_THEME = "ansi_dark"  # the terminal's own palette: fits every theme
LINK_META = "chat_link"  # the key of a link's target in a drawn line's style meta

_PARSER = block_parser()
# Rich's Markdown builds its parser (compiling every rule) in `__init__`; a block drawn
# is a copy of this one with the tokens of the shared parser (`parsed`, a public
# attribute of Rich's Markdown; tests/ui/chat/test_markdown_lines.py checks the drawing
# is Rich's own).
_TEMPLATE = RichMarkdown("", code_theme=CODE_THEME, hyperlinks=True)


def markdown_of(source: str) -> RichMarkdown:
    """Rich's Markdown of `source`, parsed with the shared parser."""
    markdown = copy.copy(_TEMPLATE)
    markdown.markup = source
    markdown.parsed = _PARSER.parse(source)
    return markdown


# Rich's Markdown starts these with a blank line when they open the text (a nested block
# closed before them asks for one); in a text they follow a block and its blank line.
_CONTAINERS = frozenset({"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"})


@dataclass(frozen=True)
class DrawnBlock:
    """A top-level block of Markdown drawn as lines (no base style: the widget adds it)."""

    lines: list[Line]
    blank_after: bool  # Rich's Markdown leaves a blank line after every block but a rule


def draw_block(source: str, console: Console, options: ConsoleOptions) -> DrawnBlock:
    """One top-level block of Markdown, as Rich's Markdown draws it inside a text (after
    the blank line that ends the block before it)."""
    markdown = markdown_of(source)
    lines = console.render_lines(markdown, options, pad=False, new_lines=False)
    first = markdown.parsed[0].type if markdown.parsed else ""
    if first in _CONTAINERS and lines and Segment.get_line_length(lines[0]) == 0:
        del lines[0]
    has_link = "](" in source or "<" in source  # inline and autolinks; a false hit costs little
    if has_link:
        lines = [_inert_links(line) for line in lines]
    return DrawnBlock(lines, blank_after=first != "hr")


_BLANK: Line = [Segment("")]  # as `Strip.blank(0)` drew it: the same picture


def join_blocks(blocks: Iterable[DrawnBlock]) -> list[Line]:
    """The lines of blocks drawn one by one, as Rich's Markdown draws them together."""
    lines: list[Line] = []
    blank = False
    for block in blocks:
        if block.lines:
            if blank:
                lines.append(_BLANK)
            lines.extend(block.lines)
            blank = block.blank_after
    return lines


_link_styles: dict[str, Style] = {}


def _inert_links(line: list[Segment]) -> list[Segment]:
    """A line whose links are no terminal hyperlinks: the target moves to the meta."""
    inert = []
    for segment in line:
        style = segment.style
        href = style.link if style is not None else None
        if style is not None and href:
            meta = _link_styles.get(href)
            if meta is None:
                meta = _link_styles[href] = Style.from_meta({LINK_META: href})
                if len(_link_styles) > 1_000:  # a cache, not a record of every link seen
                    _link_styles.clear()
            segment = Segment(segment.text, style.update_link(None) + meta)
        inert.append(segment)
    return inert
