"""The raw event inspector: every SSE event of a run as it arrived, with timing.

A run can send tens of thousands of events, so `add` only records the event; lines
reach the log in batches at most `FLUSHES_PER_SECOND` times a second (one `write` of a
multi-line `Text` each time). The view shows one truncated line per event; every
record is kept in memory, whole, for `save`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from rich.text import Text
from textual.timer import Timer
from textual.widgets import RichLog

from agent_tui.atomic_file import write_private_text
from agent_tui.sanitize import clean_text

FLUSHES_PER_SECOND = 20
DATA_SHOWN = 240  # characters of an event's data shown on its line


@dataclass(frozen=True, slots=True)
class EventRecord:
    elapsed_s: float  # since the run started
    event: str
    event_id: str | None
    data: str

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


def event_line(record: EventRecord) -> Text:
    """One line of the view: time, event name, id, data (cleaned, one line, truncated)."""
    data = clean_text(record.data).replace("\n", "⏎").replace("\t", " ")
    if len(data) > DATA_SHOWN:
        data = data[: DATA_SHOWN - 1] + "…"
    line = Text(f"{record.elapsed_s * 1000:9.0f} ms ", style="dim")
    line.append(clean_text(record.event).replace("\n", " ").ljust(18), style="bold")
    line.append(" ")
    if record.event_id is not None:
        line.append(clean_text(record.event_id).replace("\n", " "), style="cyan")
        line.append(" ")
    line.append(data)
    return line


class EventInspector(RichLog):
    DEFAULT_CSS = """
    EventInspector { height: 1fr; border-top: solid $panel; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False, highlight=False, wrap=False)
        self.records: list[EventRecord] = []
        """Every event added since the last `clear`, in order."""
        self._unshown = 0  # records at the end of `records` not written to the log yet
        self._flush_timer: Timer | None = None

    def add(self, elapsed_s: float, event: str, event_id: str | None, data: str) -> None:
        """Record one event; it shows within 1/`FLUSHES_PER_SECOND` s."""
        self.records.append(EventRecord(elapsed_s, event, event_id, data))
        self._unshown += 1
        if self._flush_timer is None and self.is_mounted:
            self._flush_timer = self.set_timer(1 / FLUSHES_PER_SECOND, self._flush)

    def on_mount(self) -> None:
        if self._unshown:
            self._flush()

    def _flush(self) -> None:
        self._flush_timer = None
        if not self._unshown:
            return
        batch = self.records[-self._unshown :]
        self._unshown = 0
        self.write(Text("\n").join(event_line(record) for record in batch))

    @property
    def shown_lines(self) -> int:
        """How many events the log shows (the rest are waiting for the next batch)."""
        return len(self.records) - self._unshown

    def save(self, path: Path) -> int:
        """Write every record as JSON Lines (`t_ms`, `event`, `id`, `data`), atomically;
        returns how many were written."""
        records = list(self.records)
        text = "".join(record.as_json() + "\n" for record in records)
        write_private_text(path, text)
        return len(records)

    def clear(self) -> Self:
        """Forget every event (a new run starts)."""
        self.records.clear()
        self._unshown = 0
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        return super().clear()
