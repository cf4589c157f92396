"""An AI message's Markdown as ONE widget of lines, drawn a block at a time.

A streaming answer changes only at its end. Textual's `Markdown` is a widget per block
(paragraph, list item, code fence…): the screen's layout walked them all on every batch
of tokens, and replacing blocks removed widgets through the app's message queue, where
keys waited behind them (a flood made keys wait seconds). Here the text is cut into its
top-level blocks (`text.markdown_blocks`), each block is drawn once with Rich's Markdown
into lines (`Strip`s) kept by its source, and the widget shows those lines through
Textual's line API (`render_line`). A batch of tokens draws only the blocks that are new
or changed (the last one, mostly); no widget is mounted or removed; the height changes
with one `refresh(layout=True)`.

Bringing the lines to a new text runs in steps of at most `STEP_SECONDS` of drawing, with
the loop free in between (a whole answer loaded at once, or a final text that differs
from the streamed one, is hundreds of blocks). A text replaced shows once all its blocks
are drawn; a text that grew shows its blocks as they are drawn, from its start.

The text must be clean (`clean_text`): Rich's Markdown never parses console markup, and
a link's target is no terminal hyperlink here: the link text is drawn with its target in
the style's meta, and a click posts `LinkClicked` (the transcript asks before opening).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import takewhile

from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from agent_tui.text.markdown_blocks import MarkdownBlocks, block_parser

logger = logging.getLogger(__name__)

STEP_SECONDS = 0.006  # drawing done in one go before the loop is let go
CODE_THEME = "ansi_dark"  # the terminal's own palette: fits every theme
LINK_META = "chat_link"  # the key of a link's target in a drawn line's style meta

_PARSER = block_parser()
# Rich's Markdown builds its parser (compiling every rule) in `__init__`; a block drawn
# is a copy of this one with the tokens of the shared parser (`parsed`, a public
# attribute of Rich's Markdown; tests/ui/chat/test_markdown_text.py checks the drawing
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

    lines: list[Strip]
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
    strips = [Strip(_inert_links(line) if has_link else line) for line in lines]
    return DrawnBlock(strips, blank_after=first != "hr")


_BLANK = Strip.blank(0)


def join_blocks(blocks: Iterable[DrawnBlock]) -> list[Strip]:
    """The lines of blocks drawn one by one, as Rich's Markdown draws them together."""
    lines: list[Strip] = []
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


@dataclass
class _Drawing:
    """Lines drawn at one width, by block source (a block repeated is drawn once)."""

    width: int
    by_source: dict[str, DrawnBlock]


class MarkdownText(Widget):
    """Markdown text shown as lines; `show(text)` brings it to a new text."""

    DEFAULT_CSS = """
    MarkdownText { width: 1fr; height: auto; }
    """

    class LinkClicked(Message):
        """A link in the text was clicked; `href` is its target, as the text has it."""

        def __init__(self, text: MarkdownText, href: str) -> None:
            super().__init__()
            self.text = text
            self.href = href

    class Failed(Message):
        """Drawing the text raised: the text cannot be shown."""

        def __init__(self, error: Exception) -> None:
            super().__init__()
            self.error = error

    def __init__(self, text: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._target = text
        self._blocks = MarkdownBlocks()
        self._shown = ""
        self._lines: list[Strip] = []
        self._width = 0  # the content width the layout gives
        self._drawing = _Drawing(0, {})
        self._job: asyncio.Task[None] | None = None
        self.steps = 0
        """Drawing steps taken so far (for tests and benchmarks)."""

    # -- what is shown ----------------------------------------------------------------

    @property
    def text(self) -> str:
        """The text the lines on screen show."""
        return self._shown

    @property
    def caught_up(self) -> bool:
        """Whether the lines show the newest text given, at the current width."""
        return self._shown == self._target and self._drawing.width == self._width

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def show(self, text: str) -> None:
        """Show `text` (clean Markdown) once drawn: at once when only its end changed."""
        self._target = text
        self._start()

    # -- the line API -----------------------------------------------------------------

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            # Drawn again at the new width in steps; meanwhile the old lines, cut to fit.
            self._width = width
            self._start()
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        style = self.rich_style
        if y < len(self._lines):
            return self._lines[y].apply_style(style)
        return Strip.blank(self.size.width, style)

    def on_click(self, event: events.Click) -> None:
        href = event.style.meta.get(LINK_META) if event.style else None
        if isinstance(href, str):
            event.stop()
            self.post_message(self.LinkClicked(self, href))

    def on_unmount(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._drawing = _Drawing(0, {})
        self._lines = []

    # -- drawing ------------------------------------------------------------------------

    def _start(self) -> None:
        if self._job is None and self._width > 0 and not self.caught_up and self.is_attached:
            self._job = asyncio.create_task(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            # A step, then the loop is free (keys go first), until caught up.
            while not self._step():  # noqa: ASYNC110 (steps of work, not a wait)
                await asyncio.sleep(0)
        except Exception as error:
            logger.error("Could not draw a Markdown text", exc_info=error)
            self.post_message(self.Failed(error))
        finally:
            self._job = None

    def _step(self) -> bool:
        """Draw for at most `STEP_SECONDS`; show the newest text once all of it is
        drawn. True when caught up."""
        self.steps += 1
        deadline = time.perf_counter() + STEP_SECONDS
        width, target = self._width, self._target
        if self._drawing.width != width:
            self._drawing = _Drawing(width, {})
        drawn = self._drawing.by_source
        blocks = self._blocks.update(target)
        missing = [source for source in blocks if source not in drawn]
        if missing:
            console = self.app.console
            options = self.app.console_options.update(width=width, height=None, highlight=False)
            for source in missing:
                drawn[source] = draw_block(source, console, options)
                if time.perf_counter() > deadline:
                    self._show_drawn_head(target, blocks)
                    return False
        self._swap(target, blocks)
        if len(drawn) > 2 * len(blocks) + 16:  # blocks no longer shown: let them go
            self._drawing.by_source = {source: drawn[source] for source in blocks}
        return self.caught_up

    def _show_drawn_head(self, target: str, blocks: list[str]) -> None:
        """While a text that grew is drawn: show the blocks drawn from its start (a text
        replaced shows once drawn whole: its head alone would be a text never given)."""
        if not target.startswith(self._shown) or self._drawing.width != self._width:
            return
        drawn = self._drawing.by_source
        head = list(takewhile(drawn.__contains__, blocks))
        text = "".join(head)
        if len(text) > len(self._shown):
            self._swap(text, head)

    def _swap(self, text: str, blocks: list[str]) -> None:
        drawn = self._drawing.by_source
        lines = join_blocks(drawn[source] for source in blocks)
        resized = len(lines) != len(self._lines)
        self._lines, self._shown = lines, text
        self.refresh(layout=resized)
