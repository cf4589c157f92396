"""Differences between two assistant contexts (or any two JSON objects).

Headless on purpose (no Textual): the detail screen colours the result, and the
update form uses `dropped_keys` to warn before a new version silently loses keys
(an update replaces the whole context; nothing is merged).

Nested objects are compared key by key, so a change deep inside shows as one change
at its dotted path (`model.temperature`) rather than as the whole object replaced.
Lists and scalars are compared as values. The walk is the one JSON diff of the app,
`checkpoint_diff.diff_values`, with lists taken whole; this module names its changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.text.value_diff import diff_values

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


def context_diff(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> list[ContextChange]:
    """Every key added, removed or changed from `old` to `new`, in a stable order.

    Keys are visited in `old`'s order, then the keys only `new` has in its order.
    """
    changes = diff_values(dict(old or {}), dict(new or {}), whole_lists=True)
    kinds: dict[str, ChangeKind] = {"added": "added", "removed": "removed", "changed": "changed"}
    return [
        ContextChange(kinds[c.kind], tuple(str(part) for part in c.path), c.before, c.after)
        for c in changes
    ]


def dropped_keys(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[str]:
    """Dotted paths of the keys `old` has and `new` lacks (nested ones too).

    What an update from `old` to `new` throws away: the server keeps only `new`.
    """
    return [change.key for change in context_diff(old, new) if change.kind == "removed"]
