"""Times as the tables show them: how long ago, and when in UTC (headless).

`Clock` is injected where a screen shows "5m ago", so tests can fix the present.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.text import Text

Clock = Callable[[], datetime]


def now_utc() -> datetime:
    return datetime.now(UTC)


def time_ago(value: datetime | None, now: datetime) -> str:
    """`5m ago`, `3h ago`, `2d ago` (`just now` under a minute)."""
    if value is None:
        return "—"
    seconds = (now - value).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def updated_text(value: datetime | None, now: datetime) -> Text:
    if value is None:
        return Text("—", style="dim")
    stamp = value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    text = Text(time_ago(value, now).ljust(9))  # so the dates line up
    text.append(stamp, style="dim")
    return text
