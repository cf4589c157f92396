"""Ids cut to what a table column shows (headless).

The rule: keep the part of an id that differs between neighbours. langgraph-api makes
thread ids as time-ordered UUIDs (version 7) and checkpoint ids as time-ordered UUIDs
(version 6): their first digits are the same for everything made around the same time,
so the end (the random part) is kept. Revision and assistant ids are random UUIDs
(version 4), so their start is as good as any part, and reads like `git`'s short hashes.
"""

from __future__ import annotations

import uuid

SHORT = 8
MISSING = "—"


def short_thread_id(thread_id: str, length: int = SHORT) -> str:
    """`…9dee15cc`: the random end of a thread id, marked as cut."""
    return thread_id if len(thread_id) <= length else "…" + thread_id[-length:]


def short_checkpoint_id(checkpoint_id: str | None) -> str:
    """`12d969e1`: the last 8 hex digits of a checkpoint id (the history list's column,
    and what `agent-tui diff` accepts as a short id)."""
    return checkpoint_id.replace("-", "")[-SHORT:] if checkpoint_id else MISSING


def short_random_id(value: str | None) -> str:
    """`3f2a9c01`: the first 8 characters of a random (version 4) id, such as a revision's
    or an assistant's."""
    return (value or MISSING)[:SHORT]


def short_cron_id(cron_id: str) -> str:
    """`…9dee15cc`: cron ids are time-ordered UUIDs (version 7) like thread ids, so the
    random end is what tells two crons apart."""
    return short_thread_id(cron_id)


def is_uuid(text: str) -> bool:
    """Whether `text` is a UUID (an id, not a name such as a graph's or a deployment's)."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True
