"""The raw event inspector: every SSE event of a run as it arrived, with timing.

A run can send tens of thousands of events, so nothing is rendered per event: `add`
only records it, and the view (a line-API `ScrollView`) formats just the lines on
screen when it paints. The scroll range grows at most `FLUSHES_PER_SECOND` times a
second. A RichLog was measured at ~0.25 ms per line rendered up front (5 s of a busy
loop for 20,000 events); this costs nothing for lines nobody scrolls to. Records are
kept whole in memory for `save`, but only the latest: past `max_records` events or
`max_data_chars` of data the oldest are forgotten (the border says how many), so a run
that never ends cannot grow the app without bound.

While the inspector is hidden (it records even then) its scroll range is left alone and
caught up when it shows: the range is a layout property, and each change re-arranges the
whole screen — with a long transcript, thousands of widgets twenty times a second, which
kept the app busy and made garbage faster than it was collected under a flood.

A line shows at most `DATA_SHOWN` characters of the data: `up`/`down` move a cursor
over the events and `enter` posts `Opened` with the whole record (the thread view
shows it as JSON).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from agent_tui.settings.atomic_file import write_private_text
from agent_tui.text.sanitize import clean_text

FLUSHES_PER_SECOND = 20
DATA_SHOWN = 240  # characters of an event's data shown on its line
# A long real run sends tens of thousands of token events (~0.5 KB each with their
# metadata); an endless one must not take more than a few tens of MB.
MAX_RECORDS = 30_000
MAX_DATA_CHARS = 16 * 1024 * 1024
EVENT_WIDTH = 18
_FIXED_WIDTH = 13 + EVENT_WIDTH + 2  # time, padding and separators of a line

_TIME = Style(dim=True)
_EVENT = Style(bold=True)
_ID = Style(color="cyan")
_CURSOR = Style(reverse=True)


@dataclass(frozen=True, slots=True)
class EventRecord:
    elapsed_s: float  # since the run started
    event: str
    event_id: str | None
    data: str

    def as_value(self) -> dict[str, Any]:
        """The record to show whole: the data parsed when it is JSON, else as text."""
        try:
            data: Any = json.loads(self.data)
        except ValueError:
            data = self.data
        return {
            "t_ms": round(self.elapsed_s * 1000, 1),
            "event": self.event,
            "id": self.event_id,
            "data": data,
        }

    def as_json(self) -> str:
        # ASCII-only: the saved file is safe to `cat` even if the data holds escapes.
        return json.dumps(
            {
                "t_ms": round(self.elapsed_s * 1000, 1),
                "event": self.event,
                "id": self.event_id,
                "data": self.data,
            }
        )


def _one_line(text: str) -> str:
    return clean_text(text).replace("\n", "⏎").replace("\t", " ")


def event_segments(record: EventRecord) -> list[Segment]:
    """One line of the view: time, event name, id, data (cleaned, one line, truncated)."""
    data = _one_line(record.data)
    if len(data) > DATA_SHOWN:
        data = data[: DATA_SHOWN - 1] + "…"
    segments = [
        Segment(f"{record.elapsed_s * 1000:9.0f} ms ", _TIME),
        Segment(_one_line(record.event).ljust(EVENT_WIDTH), _EVENT),
        Segment(" "),
    ]
    if record.event_id is not None:
        segments += [Segment(_one_line(record.event_id), _ID), Segment(" ")]
    segments.append(Segment(data))
    return segments


class EventInspector(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    EventInspector { height: 1fr; border-top: solid $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous", show=False, id="inspector.up"),
        Binding("down", "cursor(1)", "Next", show=False, id="inspector.down"),
        Binding("pageup", "cursor(-20)", "Page up", show=False, id="inspector.page_up"),
        Binding("pagedown", "cursor(20)", "Page down", show=False, id="inspector.page_down"),
        Binding("home", "cursor_to(0)", "First", show=False, id="inspector.first"),
        Binding("end", "cursor_to(-1)", "Last", show=False, id="inspector.last"),
        Binding("enter", "open", "Show event", id="inspector.open"),
    ]

    class Opened(Message):
        """The user asked to see `record` whole."""

        def __init__(self, record: EventRecord) -> None:
            super().__init__()
            self.record = record

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.records: list[EventRecord] = []
        """The events added since the last `clear`, in order (the latest, see `dropped`)."""
        self.max_records = MAX_RECORDS
        self.max_data_chars = MAX_DATA_CHARS
        self.dropped = 0
        """Events forgotten since the last `clear` to stay within the limits (the oldest)."""
        self._data_chars = 0
        self._shown = 0  # records inside the scroll range
        self._width = 0  # the widest line seen, in cells
        self._strips: LRUCache[int, Strip] = LRUCache(1024)
        self._flush_timer: Timer | None = None
        self._on_screen = False  # between Show and Hide: the scroll range is kept up
        self.cursor: int | None = None
        """The event under the cursor (None until the user moves it)."""

    def add(self, elapsed_s: float, event: str, event_id: str | None, data: str) -> None:
        """Record one event; it shows within 1/`FLUSHES_PER_SECOND` s."""
        self.records.append(EventRecord(elapsed_s, event, event_id, data))
        self._data_chars += len(data)
        if len(self.records) > self.max_records or self._data_chars > self.max_data_chars:
            self._forget_oldest()
        if self._flush_timer is None and self._on_screen:
            self._flush_timer = self.set_timer(1 / FLUSHES_PER_SECOND, self._flush)

    def _forget_oldest(self) -> None:
        # A tenth below the limits, so that the list is cut (a copy) once in a while,
        # not on every event.
        records = self.records
        count = 0
        if len(records) > self.max_records:
            count = len(records) - self.max_records * 9 // 10
        chars = self._data_chars - sum(len(record.data) for record in records[:count])
        target = self.max_data_chars * 9 // 10
        while chars > target and count < len(records):
            chars -= len(records[count].data)
            count += 1
        del records[:count]
        self._data_chars = chars
        self.dropped += count
        self.border_title = Content(f"{self.dropped:,} earlier events not kept")
        # The view's lines are indexes into `records`: move them with it.
        self._strips.clear()
        self._shown = max(0, self._shown - count)
        if self.cursor is not None:
            self.cursor = self.cursor - count if self.cursor >= count else None
        if self._on_screen:
            following = self.scroll_y >= self.max_scroll_y
            self.virtual_size = Size(self._width, self._shown)
            if not following:  # the lines being read stay in place
                self.scroll_to(y=max(0, self.scroll_y - count), animate=False)
            self.refresh()

    def on_show(self) -> None:
        self._on_screen = True
        self._flush()

    def on_hide(self) -> None:
        self._on_screen = False

    def _flush(self) -> None:
        self._flush_timer = None
        if not self._on_screen:
            return
        if self._shown == len(self.records) and self.virtual_size.height == self._shown:
            return
        at_end = self.scroll_y >= self.max_scroll_y
        # The width from plain lengths: formatting every line here would cost what
        # the line API saves (wide characters may be cut at the right edge).
        for record in self.records[self._shown :]:
            width = (
                len(record.event) + len(record.event_id or "") + min(len(record.data), DATA_SHOWN)
            )
            self._width = max(self._width, width + _FIXED_WIDTH)
        self._shown = len(self.records)
        self.virtual_size = Size(self._width, self._shown)
        if at_end:  # following the newest events unless the user scrolled up
            self.scroll_end(animate=False)
        self.refresh()

    def _strip(self, index: int) -> Strip:
        strip = self._strips.get(index)
        if strip is None:
            strip = Strip(event_segments(self.records[index]))
            self._strips[index] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        style = self.rich_style
        if index >= self._shown:
            return Strip.blank(width, style)
        if index == self.cursor:
            style = style + _CURSOR
        return self._strip(index).crop_extend(scroll_x, scroll_x + width, style).apply_style(style)

    # -- the cursor -----------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if not self._shown:
            return
        start = self.cursor if self.cursor is not None else self._shown
        self._move_cursor(start + step)

    def action_cursor_to(self, index: int) -> None:
        if self._shown:
            self._move_cursor(index if index >= 0 else self._shown - 1)

    def _move_cursor(self, index: int) -> None:
        self.cursor = max(0, min(index, self._shown - 1))
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self.refresh()

    def action_open(self) -> None:
        if self.cursor is None and self._shown:
            self._move_cursor(self._shown - 1)
        if self.cursor is not None:
            self.post_message(self.Opened(self.records[self.cursor]))

    @property
    def shown_lines(self) -> int:
        """How many events the view holds (the rest are waiting for the next batch)."""
        return self._shown

    def line_text(self, index: int) -> str:
        """Event `index` as the view shows it, as plain text."""
        return self._strip(index).text

    def save(self, path: Path) -> int:
        """Write every record as JSON Lines (`t_ms`, `event`, `id`, `data`), atomically;
        returns how many were written."""
        records = list(self.records)
        text = "".join(record.as_json() + "\n" for record in records)
        write_private_text(path, text)
        return len(records)

    def clear(self) -> None:
        """Forget every event (a new run starts)."""
        self.records.clear()
        self._strips.clear()
        self._shown = self._width = self._data_chars = self.dropped = 0
        self.border_title = None
        self.cursor = None
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        self.virtual_size = Size(0, 0)
        self.scroll_to(0, 0, animate=False)
        self.refresh()
