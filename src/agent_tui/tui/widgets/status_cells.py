"""Status words (of agent server threads and runs, control-plane deployments and
revisions) as table cells, coloured by what they mean."""

from __future__ import annotations

from rich.text import Text

from agent_tui.tui.widgets.text import server_text

# Status words of agent server threads/runs and control-plane deployments/revisions.
STATUS_STYLES: dict[str, str] = {
    "idle": "green",
    "success": "green",
    "ready": "green",
    "deployed": "green",
    "busy": "yellow",
    "pending": "yellow",
    "running": "yellow",
    "interrupted": "magenta",
    "timeout": "dark_orange",
    "error": "bold red",
}


def status_style(status: str | None) -> str:
    """The colour for a status word: known words first, then by their shape."""
    word = (status or "").strip().lower()
    if word in STATUS_STYLES:
        return STATUS_STYLES[word]
    if word.endswith("failed") or word in {"failure", "failed", "cancelled"}:
        return "bold red"
    if word.startswith(("awaiting", "creating", "queued", "building", "deploying")):
        return "yellow"
    if word in {"", "unknown", "unused", "skipped"}:
        return "dim"
    return ""


def status_text(status: str | None) -> Text:
    """A status word, coloured (idle green, busy yellow, interrupted magenta, error red)."""
    return server_text(status or "—", style=status_style(status))
