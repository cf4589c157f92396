"""Which two checkpoints the thread view's diff compares, and the diff with each side's writes.

The selected checkpoint against its parent by default (the parent is fetched when its page is
not loaded yet), or against the checkpoint marked with `m`. What was written to make each
side comes from `history.checkpoint_writes` when that side's parent is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.threads.checkpoint_diff import CheckpointDiff, diff_checkpoints
from agent_tui.threads.history import HistoryRow, ThreadHistory
from agent_tui.threads.writes import checkpoint_writes

if TYPE_CHECKING:
    from agent_tui.client.models import ThreadState

NO_PARENT = "The first checkpoint: it has no parent to compare."


def writes_of(history: ThreadHistory, state: ThreadState) -> dict[str, Any] | None:
    """node → what it wrote to make `state`; None while its parent is not loaded."""
    parent_id = state.parent_checkpoint_id
    parent = history.state(parent_id) if parent_id else None
    if parent_id and parent is None:
        return None
    writes = checkpoint_writes(state, parent)
    if not writes.known_nodes:  # an update whose node is not recorded: say so
        return {"(node not recorded)": writes.nodes.get("", {})}
    return writes.nodes


async def diff_for(
    history: ThreadHistory, row: HistoryRow, mark: str | None
) -> tuple[CheckpointDiff | None, str]:
    """The diff to show for `row` and its heading (or None and why there is none).

    `mark`: diff against that checkpoint instead of the parent. Raises the client's
    `ApiError` when the parent has to be fetched and cannot be.
    """
    if mark and mark != row.checkpoint_id and history.state(mark) is not None:
        base = history.state(mark)
        heading = "The marked checkpoint → the selected one"
    else:
        base = history.parent_of(row)
        heading = "The parent → the selected checkpoint"
        if base is None and row.parent_checkpoint_id:
            base = await history.client.threads.get_state(
                history.thread_id, row.parent_checkpoint_id
            )
    if base is None:
        return None, NO_PARENT
    state = await history.load_state(row.checkpoint_id)
    diff = diff_checkpoints(
        base,
        state,
        writes_a=writes_of(history, base),
        writes_b=writes_of(history, state),
    )
    return diff, heading
