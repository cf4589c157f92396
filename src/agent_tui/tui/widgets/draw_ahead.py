"""Lines drawn before they are asked for, while nothing else waits.

A line-API widget draws the lines Textual asks for as it paints: a page-down in a long
table drew a screenful of new rows on the key (most of a page-down's time,
`benchmarks/thread_view.py`). `DrawAhead` draws the rows a widget names (the page below
and the page above, for `LineTable`) into the widget's own line cache once it has painted,
a slice of `SLICE` seconds per turn of the loop, so a key pressed meanwhile waits for one
slice at most; the next key then finds its lines drawn.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.widget import Widget

SLICE = 0.002  # seconds of drawing per turn of the loop: a key waits no longer


class DrawAhead:
    """`painted()` after each paint; `rows()` names what to draw, `draw(row)` draws one."""

    def __init__(
        self, widget: Widget, rows: Callable[[], list[int]], draw: Callable[[int], object]
    ) -> None:
        self._widget, self._rows, self._draw = widget, rows, draw
        self._queue: list[int] = []
        self._due = False

    def painted(self) -> None:
        """The widget painted: the rows around what it shows now, from the next slice."""
        self._queue = []
        if not self._due:
            self._due = True
            self._widget.call_later(self._slice)

    def _slice(self) -> None:
        if not self._queue:
            self._queue = self._rows()
        deadline = time.perf_counter() + SLICE
        while self._queue and time.perf_counter() < deadline:
            self._draw(self._queue.pop(0))
        if self._queue:
            self._widget.call_later(self._slice)
        else:
            self._due = False
