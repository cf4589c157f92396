"""Differences between two assistant contexts (or any two JSON objects).

Headless on purpose (no Textual): the detail screen colours the result, and the
update form uses `dropped_keys` to warn before a new version silently loses keys
(an update replaces the whole context; nothing is merged).

Nested objects are compared key by key, so a change deep inside shows as one change
at its dotted path (`model.temperature`) rather than as the whole object replaced.
Lists and scalars are compared as values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class ContextChange:
    """One difference: at `path`, `old` became `new` (MISSING on the absent side)."""

    kind: ChangeKind
    path: tuple[str, ...]
    old: Any = None
    new: Any = None

    @property
    def key(self) -> str:
        return ".".join(self.path)

    def __str__(self) -> str:
        if self.kind == "added":
            return f"+ {self.key} = {format_value(self.new)}"
        if self.kind == "removed":
            return f"- {self.key} = {format_value(self.old)}"
        return f"~ {self.key}: {format_value(self.old)} → {format_value(self.new)}"


def format_value(value: Any) -> str:
    """A value as compact JSON (what users typed it as); falls back to `repr`."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _same(old: Any, new: Any) -> bool:
    # JSON semantics: 1 and True are different values, 1 and 1.0 are the same number.
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new) and old == new
    return bool(old == new)


def context_diff(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> list[ContextChange]:
    """Every key added, removed or changed from `old` to `new`, in a stable order.

    Keys are visited in `old`'s order, then the keys only `new` has in its order.
    """
    changes: list[ContextChange] = []
    _diff(old or {}, new or {}, (), changes)
    return changes


def _diff(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    prefix: tuple[str, ...],
    changes: list[ContextChange],
) -> None:
    for key, old_value in old.items():
        path = (*prefix, str(key))
        if key not in new:
            changes.append(ContextChange("removed", path, old=old_value))
            continue
        new_value = new[key]
        if isinstance(old_value, Mapping) and isinstance(new_value, Mapping):
            _diff(old_value, new_value, path, changes)
        elif not _same(old_value, new_value):
            changes.append(ContextChange("changed", path, old=old_value, new=new_value))
    for key, new_value in new.items():
        if key not in old:
            changes.append(ContextChange("added", (*prefix, str(key)), new=new_value))


def dropped_keys(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[str]:
    """Dotted paths of the keys `old` has and `new` lacks (nested ones too).

    What an update from `old` to `new` throws away: the server keeps only `new`.
    """
    return [change.key for change in context_diff(old, new) if change.kind == "removed"]
