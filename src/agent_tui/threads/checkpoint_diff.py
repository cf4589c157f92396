"""Structural diff of two checkpoints: `values`, `next`, and what was written. Headless.

`diff_checkpoints(a, b)` diffs the values (`text.value_diff.diff_values`) and adds `next`
and each side's writes. The result renders as text lines (`CheckpointDiff.lines()`, for the
CLI and the TUI; server text is cleaned of terminal controls) and as JSON with stable keys
(`as_json()`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.text.sanitize import clean_text
from agent_tui.text.value_diff import (
    VALUE_WIDTH,
    ValueChange,
    diff_values,
    is_message_list,
    message_line,
    short,
)

if TYPE_CHECKING:
    # Annotations only: the client package loads httpx and pydantic.
    from agent_tui.client.models import ThreadState


@dataclass(frozen=True, slots=True)
class CheckpointSide:
    """One side of a diff: which checkpoint, and what was written to make it."""

    checkpoint_id: str | None
    step: int | None
    source: str | None
    next: list[str]
    writes: dict[str, Any] | None = None  # node → values written; None: not known

    @classmethod
    def of(cls, state: ThreadState, writes: dict[str, Any] | None = None) -> CheckpointSide:
        if writes is None and state.writes:
            writes = state.writes
        return cls(state.checkpoint_id, state.step, state.source, list(state.next), writes)

    def as_json(self) -> dict[str, Any]:
        return {
            "checkpoint_id": self.checkpoint_id,
            "step": self.step,
            "source": self.source,
            "next": self.next,
            "writes": self.writes,
        }

    def label(self) -> str:
        step = "?" if self.step is None else str(self.step)
        return f"step {step} {self.source or '?'} {self.checkpoint_id or '?'}"


@dataclass(frozen=True, slots=True)
class CheckpointDiff:
    """From checkpoint `a` to checkpoint `b`."""

    a: CheckpointSide
    b: CheckpointSide
    values: list[ValueChange] = field(default_factory=list)

    @property
    def next_changed(self) -> bool:
        return self.a.next != self.b.next

    @property
    def empty(self) -> bool:
        return not self.values and not self.next_changed

    def as_json(self) -> dict[str, Any]:
        return {
            "a": self.a.as_json(),
            "b": self.b.as_json(),
            "values": [change.as_json() for change in self.values],
            "next": {"a": self.a.next, "b": self.b.next, "changed": self.next_changed},
        }

    def lines(self, width: int = VALUE_WIDTH) -> list[str]:
        lines = [f"a: {clean_text(self.a.label())}", f"b: {clean_text(self.b.label())}", ""]
        lines.append("values:" if self.values else "values: no change")
        lines += [f"  {change.line(width)}" for change in self.values]
        if self.next_changed:
            lines.append(f"next: {short(self.a.next, width)} → {short(self.b.next, width)}")
        else:
            lines.append(f"next: {short(self.b.next, width)} (same)")
        for name, side in (("a", self.a), ("b", self.b)):
            lines += _writes_lines(name, side.writes, width)
        return lines


def _writes_lines(name: str, writes: dict[str, Any] | None, width: int) -> list[str]:
    if writes is None:
        return [f"written to make {name}: unknown"]
    if not writes:
        return [f"written to make {name}: nothing"]
    lines = [f"written to make {name}:"]
    for node, value in writes.items():
        if not isinstance(value, Mapping) or not value:
            lines.append(f"  {clean_text(node)}: {short(value, width)}")
            continue
        for key, item in value.items():
            where = f"  {clean_text(node)}: {clean_text(str(key))}"
            if is_message_list(item):
                lines += [f"{where}: {message_line(message, width)}" for message in item]
            else:
                lines.append(f"{where}: {short(item, width)}")
    return lines


def diff_checkpoints(
    a: ThreadState,
    b: ThreadState,
    *,
    writes_a: dict[str, Any] | None = None,
    writes_b: dict[str, Any] | None = None,
) -> CheckpointDiff:
    """What changed from `a` to `b` (either may be older; usually `a` is)."""
    return CheckpointDiff(
        a=CheckpointSide.of(a, writes_a),
        b=CheckpointSide.of(b, writes_b),
        values=diff_values(a.values, b.values),
    )


def summarize(changes: Sequence[ValueChange]) -> str:
    """`3 changes: messages, n` — the keys touched, for a one-line status."""
    keys = []
    for change in changes:
        top = str(change.path[0]) if change.path else "(values)"
        if top not in keys:
            keys.append(top)
    noun = "change" if len(changes) == 1 else "changes"
    return f"{len(changes)} {noun}: {', '.join(keys)}" if changes else "no change"


__all__ = ["CheckpointDiff", "CheckpointSide", "diff_checkpoints", "summarize"]
