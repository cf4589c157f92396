"""Structural diff of two JSON values, for checkpoints, contexts and revisions. Headless.

`diff_values(before, after)` walks two JSON values:

- objects key by key (added, removed, changed; nested objects recursively, so a change deep
  inside shows at its path, `plan.steps`, not as the whole object replaced);
- message lists (every item an object with `id` and `type`/`role`) by message id: a
  message added, removed or changed, shown by its text rather than as raw JSON;
- other lists by their common prefix and suffix: `[1, 2] → [1, 2, 3]` is one item appended,
  `[1, 7, 2] → [1, 2]` one item removed at index 1 — not the whole list changed;
- anything else by equality.

Each change renders as a text line (server text cleaned of terminal controls) and as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.text.message_text import message_role, message_text
from agent_tui.text.sanitize import clean_text

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
