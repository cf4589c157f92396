"""One build or deploy log entry as a line of text: `agent-tui deployments logs` prints
it and the Deployments screen's log view shows it (both clean it first)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.client.models.control_plane import LogEntry

LOG_LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
"""The levels the logs endpoints filter on (the official CLI's `--level` choices)."""


def log_time(timestamp: object) -> str:
    """An entry's time: epoch milliseconds as UTC `YYYY-MM-DD HH:MM:SS`, a string as it is."""
    if isinstance(timestamp, int | float) and not isinstance(timestamp, bool):
        try:
            moment = datetime.fromtimestamp(timestamp / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return str(timestamp)
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return "" if timestamp is None else str(timestamp)


def log_line(entry: LogEntry) -> str:
    return f"{log_time(entry.timestamp)}  {entry.level or '':<7}  {entry.message}"
