"""Structural diff of two checkpoints: `values`, `next`, and what was written. Headless.

`diff_values(before, after)` walks two JSON values:

- objects key by key (added, removed, changed; nested objects recursively, so a change deep
  inside shows at its path, `plan.steps`, not as the whole object replaced);
- message lists (every item an object with `id` and `type`/`role`) by message id: a
  message added, removed or changed, shown by its text rather than as raw JSON;
- other lists by their common prefix and suffix: `[1, 2] → [1, 2, 3]` is one item appended,
  `[1, 7, 2] → [1, 2]` one item removed at index 1 — not the whole list changed;
- anything else by equality.

`diff_checkpoints(a, b)` adds `next` and each side's writes. The result renders as text lines
(`CheckpointDiff.lines()`, for the CLI and the TUI; server text is cleaned of terminal
controls) and as JSON with stable keys (`as_json()`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.message_text import message_role, message_text
from agent_tui.sanitize import clean_text

if TYPE_CHECKING:
    # Annotations only: the app imports this module (through the context diff) before
    # its first paint, and the client package loads httpx and pydantic.
    from agent_tui.client.models import ThreadState

ChangeKind = Literal[
    "added",  # a key that only `after` has
    "removed",  # a key that only `before` has
    "changed",  # a value replaced (scalars, or values of different types)
    "items_added",  # list items inserted at `index` (appended when at the end)
    "items_removed",  # list items of `before` gone from `index`
    "message_added",
    "message_removed",
    "message_changed",  # same message id, different content or fields
]
Path = tuple[str | int, ...]

VALUE_WIDTH = 100  # text lines cut values longer than this


@dataclass(frozen=True, slots=True)
class ValueChange:
    kind: ChangeKind
    path: Path
    before: Any = None
    after: Any = None
    index: int | None = None  # list changes: where in the list
    appended: bool = False  # items_added at the end of the list

    @property
    def where(self) -> str:
        return clean_text(format_path(self.path))

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": list(self.path),
            "before": self.before,
            "after": self.after,
            "index": self.index,
            "appended": self.appended,
        }

    def line(self, width: int = VALUE_WIDTH) -> str:
        where = self.where or "(values)"
        if self.kind == "added":
            return f"+ {where}: {short(self.after, width)}"
        if self.kind == "removed":
            return f"- {where}: {short(self.before, width)}"
        if self.kind == "changed":
            return f"~ {where}: {short(self.before, width)} → {short(self.after, width)}"
        if self.kind == "items_added":
            verb = "appended" if self.appended else f"inserted at {self.index}"
            return f"+ {where}: {verb} {_items(self.after, width)}"
        if self.kind == "items_removed":
            return f"- {where}: removed at {self.index} {_items(self.before, width)}"
        if self.kind == "message_added":
            return f"+ {where}: {message_line(self.after, width)}"
        if self.kind == "message_removed":
            return f"- {where}: {message_line(self.before, width)}"
        before, after = _message_body(self.before, width), _message_body(self.after, width)
        if before == after:  # same text: some other field changed (tool calls, metadata…)
            fields = sorted(
                k for k in {*self.before, *self.after} if self.before.get(k) != self.after.get(k)
            )
            return f"~ {where}: {message_line(self.after, width)} fields {', '.join(fields)}"
        return f"~ {where}: {message_line(self.before, width)} → {after}"


def format_path(path: Path) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def short(value: Any, width: int = VALUE_WIDTH) -> str:
    """Compact JSON, cleaned of terminal controls, cut to `width` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    text = clean_text(text).replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def _items(items: Any, width: int) -> str:
    count = len(items) if isinstance(items, list) else 0
    noun = "item" if count == 1 else "items"
    return f"{count} {noun}: {short(items, width)}"


def _message_body(message: Any, width: int) -> str:
    text = " ".join(clean_text(message_text(message)).split())
    text = json.dumps(text, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 2] + '…"'


def message_line(message: Any, width: int = VALUE_WIDTH) -> str:
    """`ai "Hello" (id …)`: a message by its role and text."""
    role = clean_text(message_role(message)) or "message"
    ident = message.get("id") if isinstance(message, dict) else None
    suffix = f" (id {clean_text(str(ident))})" if ident else ""
    return f"{role} {_message_body(message, width)}{suffix}"


def is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("type") or value.get("role"), str)
        and "content" in value
    )


def is_message_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_message(item) for item in value)


def diff_values(
    before: Any, after: Any, path: Path = (), *, whole_lists: bool = False
) -> list[ValueChange]:
    """Every difference between two JSON values, in document order.

    `whole_lists`: a list that differs is one `changed` value, and numbers compare as JSON
    does (`1` and `1.0` are the same, `1` and `true` are not) — how assistant contexts
    are compared (`context_diff`), where a list is a setting, not a log."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        return _diff_objects(before, after, path, whole_lists)
    if isinstance(before, list) and isinstance(after, list) and not whole_lists:
        if before == after:
            return []
        if (is_message_list(before) or not before) and (is_message_list(after) or not after):
            return diff_messages(before, after, path)
        return _diff_lists(before, after, path)
    same = json_same(before, after) if whole_lists else _strictly_same(before, after)
    return [] if same else [ValueChange("changed", path, before, after)]


def _strictly_same(before: Any, after: Any) -> bool:
    return bool(before == after) and type(before) is type(after)


def json_same(before: Any, after: Any) -> bool:
    """Equal as JSON values: 1 and True differ, 1 and 1.0 are the same number."""
    if isinstance(before, bool) or isinstance(after, bool):
        return type(before) is type(after) and before == after
    return bool(before == after)


def _diff_objects(
    before: Mapping[str, Any], after: Mapping[str, Any], path: Path, whole_lists: bool
) -> list[ValueChange]:
    changes: list[ValueChange] = []
    for key in before:
        if key not in after:
            changes.append(ValueChange("removed", (*path, key), before=before[key]))
        else:
            changes += diff_values(before[key], after[key], (*path, key), whole_lists=whole_lists)
    for key in after:
        if key not in before:
            changes.append(ValueChange("added", (*path, key), after=after[key]))
    return changes


def _diff_lists(before: list[Any], after: list[Any], path: Path) -> list[ValueChange]:
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    removed = before[prefix : len(before) - suffix]
    added = after[prefix : len(after) - suffix]
    changes: list[ValueChange] = []
    if removed and added and len(removed) == len(added) and len(removed) == 1:
        # One item replaced in place: show what changed inside it.
        return diff_values(removed[0], added[0], (*path, prefix))
    if removed:
        changes.append(ValueChange("items_removed", path, before=removed, index=prefix))
    if added:
        appended = suffix == 0 and prefix == len(before) - len(removed)
        changes.append(
            ValueChange("items_added", path, after=added, index=prefix, appended=appended)
        )
    return changes


def diff_messages(before: list[Any], after: list[Any], path: Path) -> list[ValueChange]:
    """Messages matched by id: added, removed, or changed (any field)."""
    old = {message["id"]: message for message in before}
    new_ids = {message["id"] for message in after}
    changes: list[ValueChange] = []
    for message in before:
        if message["id"] not in new_ids:
            changes.append(ValueChange("message_removed", path, before=message))
    for index, message in enumerate(after):
        previous = old.get(message["id"])
        if previous is None:
            changes.append(ValueChange("message_added", path, after=message, index=index))
        elif previous != message:
            changes.append(
                ValueChange("message_changed", path, before=previous, after=message, index=index)
            )
    return changes


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


__all__ = [
    "CheckpointDiff",
    "CheckpointSide",
    "ValueChange",
    "diff_checkpoints",
    "diff_messages",
    "diff_values",
    "format_path",
    "is_message_list",
    "message_line",
    "short",
    "summarize",
]
