"""The words the local server's log uses when it cannot save its data, and again when it
can: the server child writes them (`agent_tui.server.records`), the app's session and
``agent-tui serve`` read them in its output."""

from __future__ import annotations

DISK_PROBLEM = "agent-tui: cannot save the server's data"
"""The start of the log line that tells a user writes are being refused."""
DISK_RECOVERED = "agent-tui: the server's data is saved again"
PROBLEM_END = "changes are refused until it can"


def disk_news(line: str) -> str | None:
    """From a server log line: the problem's words if it says the data cannot be saved,
    ``""`` if it says it is saved again, None otherwise."""
    if DISK_RECOVERED in line:
        return ""
    start = line.find(DISK_PROBLEM)
    if start < 0:
        return None
    end = line.find(PROBLEM_END, start)
    return line[start : end + len(PROBLEM_END)] if end >= 0 else line[start:]
