"""An AI message's Markdown as ONE widget of lines, drawn a block at a time.

A streaming answer changes only at its end. Textual's `Markdown` is a widget per block
(paragraph, list item, code fence…): the screen's layout walked them all on every batch
of tokens, and replacing blocks removed widgets through the app's message queue, where
keys waited behind them (a flood made keys wait seconds). Here the text is cut into its
top-level blocks (`text.markdown_blocks`), each block is drawn once with Rich's Markdown
into lines kept by its source (`markdown_lines`), and the widget shows those lines
through Textual's line API (`render_line`). A batch of tokens draws only the blocks that
are new or changed (the last one, mostly); no widget is mounted or removed; the height
changes with one `refresh(layout=True)`.

The drawing is off the caller's path and in bounded steps: every `MarkdownText` of an app
with drawing to do waits in one `DrawingQueue`, whose task draws for a slice of a turn of
the loop and lets it go in between: 5 ms when the loop is idle, down to 1 ms when the rest
of the turn was long (`tui.turn_budget`: a refresh of the screen, a busy machine). However many messages wait
(a thread's history loaded) and however long (a whole answer loaded at once, or a final
text that differs from the streamed one, is hundreds of blocks), a key waits for one
slice at most. What was drawn is shown every `SHOW_EVERY` s at most (longer when the loop
is slow: see `DrawingQueue`), for every message at once: a height that changes is a layout
and a paint of the whole screen. A text replaced shows once all its blocks are drawn; a
long text that grew shows its blocks as they are drawn, from its start, at the same
showings.

A link's target is in its line's style meta (`LINK_META`); a click on it posts
`LinkClicked` (the transcript asks before opening anything).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from rich.segment import Segment
from textual import events
from textual.app import App
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from agent_tui.text.markdown_blocks import MarkdownBlocks
from agent_tui.tui.chat.markdown_lines import (
    LINK_META,
    DrawnBlock,
    Line,
    draw_block,
    join_blocks,
)
from agent_tui.tui.gc_tuning import catching_up
from agent_tui.tui.turn_budget import TurnBudget
from agent_tui.tui.widgets.laid_out_once import virtual_size_without_layout

logger = logging.getLogger(__name__)

HEAD_EVERY = 0.1  # seconds between two stagings of a long text's head while it is drawn
SHOW_EVERY = 0.1  # seconds between two showings of what was drawn, over every message
# ... at least, and at least this many times the longest turn of the loop since the last
# showing (which holds that showing's layout), at most SHOW_MOST seconds.
SHOW_LAG_FACTOR = 4
SHOW_MOST = 0.4


class DrawingQueue:
    """The texts of one app that have drawing to do, drawn in turn by one task; what
    they drew is shown all at once, every `SHOW_EVERY` s at most (each showing that
    changes a height is a layout of the whole screen: under a flood of messages, one
    per text and turn of the loop left no time for keys).

    A layout costs what is on screen, and the machine's other work stretches it (20-40
    ms on a quiet 2-core machine, 50-130 ms on a loaded one): the time between two
    showings is also `SHOW_LAG_FACTOR` times the longest turn of the loop seen since the
    last one, up to `SHOW_MOST`, so the layouts of a stream keep to about a quarter of
    the loop's time and keys do not queue behind one layout after another."""

    def __init__(self) -> None:
        self._waiting: dict[MarkdownText, None] = {}  # an ordered set, oldest first
        self._drawn: dict[MarkdownText, None] = {}  # drawn, to show at the next showing
        self._next_show = 0.0
        self._longest_lag = 0.0  # the longest turn of the loop since the last showing
        self._task: asyncio.Task[None] | None = None
        self.budget = TurnBudget()
        """The drawing's slice of each turn of the loop."""
        self.turns = 0
        """Turns of the loop the queue drew in (for tests and benchmarks)."""

    def add(self, text: MarkdownText) -> None:
        self._waiting.setdefault(text, None)
        if self._task is None:
            self._task = asyncio.create_task(self._draw())

    def discard(self, text: MarkdownText) -> None:
        self._waiting.pop(text, None)
        self._drawn.pop(text, None)

    async def _draw(self) -> None:
        budget = self.budget
        deadline = budget.start()
        try:
            with catching_up():  # the full collection after a run waits for the drawing
                while self._waiting or self._drawn:
                    if self._waiting:
                        self._turn(deadline)
                    now = time.perf_counter()
                    if self._drawn and now >= self._next_show:
                        self._show(now)
                    if self._waiting:
                        # The loop is free between turns: keys go first.
                        deadline = await budget.yield_turn()
                        self._longest_lag = max(self._longest_lag, budget.lag)
                    elif self._drawn:
                        await asyncio.sleep(self._next_show - now)
                        late = time.perf_counter() - self._next_show
                        self._longest_lag = max(self._longest_lag, late)
                        deadline = budget.start()
        finally:
            self._task = None

    def _turn(self, deadline: float) -> None:
        self.turns += 1
        for text in list(self._waiting):
            if time.perf_counter() > deadline:
                return
            try:
                done = text.draw_until(deadline)
            except Exception as error:
                done = True
                text.failed(error)
            self._waiting.pop(text, None)
            if not done:  # to the end of the queue: the others get their turn
                self._waiting[text] = None
            if text.has_drawn_text:  # the whole text, or the head of one being drawn
                self._drawn[text] = None

    def _show(self, now: float) -> None:
        drawn, self._drawn = self._drawn, {}
        for text in drawn:
            try:
                text.show_drawn()
            except Exception as error:
                text.failed(error)
        wait = min(SHOW_MOST, max(SHOW_EVERY, SHOW_LAG_FACTOR * self._longest_lag))
        self._next_show, self._longest_lag = now + wait, 0.0


_queues: weakref.WeakKeyDictionary[App[Any], DrawingQueue] = weakref.WeakKeyDictionary()


def drawing_queue(app: App[Any]) -> DrawingQueue:
    """The drawing queue of `app`."""
    queue = _queues.get(app)
    if queue is None:
        queue = _queues[app] = DrawingQueue()
    return queue


@dataclass
class _Drawing:
    """Blocks drawn at one width, by source (a block repeated is drawn once)."""

    width: int
    by_source: dict[str, DrawnBlock]


class MarkdownText(Widget):
    """Markdown text (clean: see `markdown_lines`) shown as lines; `show(text)` brings
    it to a new text."""

    DEFAULT_CSS = """
    MarkdownText { width: 1fr; height: auto; }
    """

    virtual_size = virtual_size_without_layout()  # its height is its lines'

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
        self._lines: list[Line] = []
        self._width = 0  # the content width the layout gives
        self._drawing = _Drawing(0, {})
        self._head_shown = 0.0  # when the head of a text being drawn was last shown
        self._drawn_text: tuple[str, list[str]] | None = None  # drawn, not shown yet
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
        """Show `text` (clean Markdown) once drawn, soon: nothing is drawn here."""
        self._target = text
        self._wait_for_drawing()

    # -- the line API -----------------------------------------------------------------

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            # Drawn again at the new width; meanwhile the old lines, cut to fit.
            self._width = width
            self._wait_for_drawing()
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        style = self.visual_style.rich_style  # cached (`rich_style` walks the ancestors)
        if y < len(self._lines):
            # A strip made now (see `markdown_lines`): Textual keeps it while it shows.
            return Strip(Segment.apply_style(self._lines[y], style))
        return Strip.blank(self._width, style)

    def on_click(self, event: events.Click) -> None:
        href = event.style.meta.get(LINK_META) if event.style else None
        if isinstance(href, str):
            event.stop()
            self.post_message(self.LinkClicked(self, href))

    def on_unmount(self) -> None:
        drawing_queue(self.app).discard(self)
        self._drawing = _Drawing(0, {})
        self._lines = []

    # -- drawing ------------------------------------------------------------------------

    def _wait_for_drawing(self) -> None:
        if self._width > 0 and not self.caught_up and self.is_attached:
            drawing_queue(self.app).add(self)

    def draw_until(self, deadline: float) -> bool:
        """Draw until `deadline` (`time.perf_counter()`) at most. True once the newest
        text is drawn (shown at the queue's next showing) or the widget is gone."""
        if not self.is_attached:
            return True
        self.steps += 1
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
                    self._stage_head(target, blocks)
                    return False
        self._drawn_text = (target, blocks)  # shown at the queue's next showing
        if len(drawn) > 2 * len(blocks) + 16:  # blocks no longer shown: let them go
            self._drawing.by_source = {source: drawn[source] for source in blocks}
        return True

    @property
    def has_drawn_text(self) -> bool:
        """Whether a text is drawn and waits to be shown."""
        return self._drawn_text is not None

    def show_drawn(self) -> None:
        """Show the text drawn last (if the widget is still there)."""
        if self._drawn_text is not None and self.is_attached:
            (text, blocks), self._drawn_text = self._drawn_text, None
            if not self._target.startswith(text):
                return  # the text was replaced meanwhile: it is being drawn
            if all(source in self._drawing.by_source for source in blocks):
                self._swap(text, blocks)
            else:  # drawn at another width meanwhile: drawn again
                self._wait_for_drawing()

    def failed(self, error: Exception) -> None:
        logger.error("Could not draw a Markdown text", exc_info=error)
        self.post_message(self.Failed(error))

    def _stage_head(self, target: str, blocks: list[str]) -> None:
        """While a text that grew is drawn: the blocks drawn from its start are shown at
        the queue's next showing (each is a layout of the screen: under a flood, the
        text being drawn was shown this way, besides the queue's showings). Looked at
        every `HEAD_EVERY` s at most. A text replaced shows once drawn whole: its head
        alone would be a text never given."""
        now = time.perf_counter()
        if not target.startswith(self._shown) or now - self._head_shown < HEAD_EVERY:
            return
        self._head_shown = now
        drawn = self._drawing.by_source
        head = list(takewhile(drawn.__contains__, blocks))
        text = "".join(head)
        if len(text) > len(self._shown):
            self._drawn_text = (text, head)

    def _swap(self, text: str, blocks: list[str]) -> None:
        drawn = self._drawing.by_source
        lines, old = join_blocks(drawn[source] for source in blocks), self._lines
        self._lines, self._shown = lines, text
        # Only the lines from the first one that changed are painted again (a block
        # unchanged keeps its line objects): a batch of tokens repaints the last block,
        # not the screenful of text above it.
        first = next(
            (y for y, (was, now) in enumerate(zip(old, lines, strict=False)) if was is not now),
            min(len(old), len(lines)),
        )
        end = max(len(old), len(lines))
        if first < end:
            # (Not `self.size`: it walks the whole screen's map once a layout is due.)
            self.refresh(Region(0, first, max(self._width, 1), end - first))
        if len(lines) != len(old):
            self.refresh(layout=True, repaint=False)
