"""Checkpoint rows at known times, for the Timeline's model and its view."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from agent_tui.client.models import ThreadState
from agent_tui.threads.history import HeldState, HistoryRow

T0 = datetime(2026, 11, 23, 12, 0, 0, tzinfo=UTC)


def row(
    checkpoint_id: str,
    step: int,
    seconds: float,
    *writers: str,
    source: str = "loop",
    run: str | None = None,
) -> HistoryRow:
    """Checkpoint `checkpoint_id` of `step`, made `seconds` after `T0` by `writers` (in
    run `run`, when given: the server's `metadata.run_id`)."""
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
        held=HeldState(ThreadState(metadata={"run_id": run} if run else {})),
        run_id=run,
    )


# One thread's branch: the step that took 2 s is the slow one.
BRANCH = [
    row("c-input", -1, 0.0, "__input__", source="input"),
    row("c0", 0, 0.01, "__start__"),
    row("c1", 1, 2.01, "slow_model"),
    row("c2", 2, 2.11, "tools"),
]


def debug(kind: str, step: int, seconds: float, payload: dict[str, Any]) -> dict[str, Any]:
    stamp = (T0 + timedelta(seconds=seconds)).isoformat()
    return {"type": kind, "step": step, "timestamp": stamp, "payload": payload}


def checkpoint_payload(checkpoint_id: str) -> dict[str, Any]:
    return {"config": {"configurable": {"checkpoint_id": checkpoint_id}}, "metadata": {}}


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# Run A pauses before `tools` at step 1 (a breakpoint); the user looks for 18 s, then
# continues: run B (made at 20.0 s, no input) runs `tools` for 50 ms.
PAUSED = [
    row("p-input", -1, 0.0, "__input__", source="input", run="A"),
    row("p0", 0, 0.01, "__start__", run="A"),
    row("p1", 1, 2.01, "slow_model", run="A"),
    row("p2", 2, 20.05, "tools", run="B"),
]
