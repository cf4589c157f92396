"""Every time the app shows, in UTC (headless): how long ago, and when.

The one home for time formatting: tables, the history list, pickers, the command line
and file names all print UTC, so two machines (and a bug report) show the same text.
`Clock` is injected where a screen shows "5m ago", so tests can fix the present.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.text import Text

Clock = Callable[[], datetime]

MISSING = "—"


def now_utc() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    """Aware times converted to UTC; naive ones are taken as UTC already (servers send UTC)."""
    return value.astimezone(UTC) if value.tzinfo is not None else value


def utc_seconds(value: datetime | None, missing: str = MISSING) -> str:
    """`2026-11-21 16:34:55`: a UTC timestamp to the second (the same everywhere, sortable)."""
    return _utc(value).strftime("%Y-%m-%d %H:%M:%S") if value is not None else missing


def utc_minutes(value: datetime | None, missing: str = MISSING) -> str:
    """`2026-11-21 16:34`: a UTC timestamp to the minute, where a column is narrow."""
    return _utc(value).strftime("%Y-%m-%d %H:%M") if value is not None else missing


def utc_seconds_of_text(text: str | None) -> str:
    """An ISO timestamp as `utc_seconds` shows it, or the text as given if it does not parse."""
    if not text:
        return MISSING
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    return utc_seconds(moment)


def utc_clock(value: datetime) -> str:
    """`16:34:55` in UTC: when a line of a live log happened."""
    return _utc(value).strftime("%H:%M:%S")


def utc_file_stamp(value: datetime) -> str:
    """`20261121-163455` in UTC: a timestamp for a file name (sorts, no spaces or colons)."""
    return _utc(value).strftime("%Y%m%d-%H%M%S")


def time_ago(value: datetime | None, now: datetime) -> str:
    """`5m ago`, `3h ago`, `2d ago` (`just now` under a minute)."""
    if value is None:
        return MISSING
    seconds = (now - value).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def updated_text(value: datetime | None, now: datetime) -> Text:
    """`5m ago   2026-11-21 16:34`: how long ago, then when in UTC (dim)."""
    if value is None:
        return Text(MISSING, style="dim")
    text = Text(time_ago(value, now).ljust(9))  # so the dates line up
    text.append(utc_minutes(value), style="dim")
    return text
