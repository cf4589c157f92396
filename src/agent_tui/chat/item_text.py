"""Transcript pieces as one line of plain text (headless): the chat's blocks use these
in their labels, `agent-tui run` in its lines. Cleaned: the text comes from a server."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.text.sanitize import clean_text

COMPACT_LIMIT = 400  # characters of a one-line JSON value shown (tool call arguments)


def namespace_label(namespace: tuple[str, ...]) -> str:
    """`("parent:<task id>", "child:<task id>")` → `parent:child`: the subgraph path by
    node names (task ids are noise to a reader)."""
    return ":".join(part.split(":", 1)[0] for part in namespace)


def compact_json(value: Any, limit: int = COMPACT_LIMIT) -> str:
    """`value` as one line of cleaned JSON, cut at `limit` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # circular structures: show something rather than fail
        text = repr(value)
    text = clean_text(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def written_keys(update: Any) -> str:
    """What a node's update wrote, by key: `messages, n` (`nothing` for None)."""
    if update is None:
        return "nothing"
    if isinstance(update, dict):
        return ", ".join(str(key) for key in update) or "nothing"
    if isinstance(update, list):  # several writes of one step (e.g. Send fan-out)
        return f"{len(update)} writes"
    return type(update).__name__


def update_values(update: Any, limit: int = COMPACT_LIMIT) -> str:
    """`n=2, items=[1]`: what a node wrote, with its values (each cut at `limit`
    characters); messages by key only (the transcript shows them as messages)."""
    if not isinstance(update, dict) or not update:
        return written_keys(update)
    parts = [
        clean_text(str(key)) if key == "messages" else f"{key}={compact_json(value, limit)}"
        for key, value in update.items()
    ]
    return clean_text(", ".join(parts))
