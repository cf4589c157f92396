"""Checkpoint rows at known times, for the Timeline's model and its view."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent_tui.client.models import ThreadState
from agent_tui.threads.history import HistoryRow

T0 = datetime(2026, 11, 23, 12, 0, 0, tzinfo=UTC)


def row(
    checkpoint_id: str, step: int, seconds: float, *writers: str, source: str = "loop"
) -> HistoryRow:
    """Checkpoint `checkpoint_id` of `step`, made `seconds` after `T0` by `writers`."""
    return HistoryRow(
        checkpoint_id=checkpoint_id,
        parent_checkpoint_id=None,
        step=step,
        source=source,
        writers=writers,
        written_keys=(),
        writes_source="tasks",
        next=(),
        interrupts=(),
        created_at=(T0 + timedelta(seconds=seconds)).isoformat(),
        state=ThreadState(),
    )


# One thread's branch: the step that took 2 s is the slow one.
BRANCH = [
    row("c-input", -1, 0.0, "__input__", source="input"),
    row("c0", 0, 0.01, "__start__"),
    row("c1", 1, 2.01, "slow_model"),
    row("c2", 2, 2.11, "tools"),
]
