"""Which nodes wrote a checkpoint, and what (`checkpoint_writes`). Headless.

It comes, best source first, from:

1. `metadata.writes` — older LangGraph versions record it; LangGraph 1.x does not;
2. the input checkpoint's own `__start__` task, whose result is the input (`__input__`);
3. the parent's tasks: each task that ran from the parent carries its `result`, i.e. what
   that node wrote to make this checkpoint — used when it agrees with the values (it does
   for `loop` steps and for supersteps; a replay's branch may differ from the first run);
4. the difference between this checkpoint's values and its parent's (`update` steps made
   by `update_state`, forks): the keys are known, the node is not (for a `loop` step, the
   node is the parent's task).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.client.models import ThreadState
from agent_tui.text.value_diff import is_message, is_message_list

WritesSource = Literal["metadata", "input", "tasks", "delta"]
INPUT_NODE = "__input__"
START_NODE = "__start__"


@dataclass(frozen=True, slots=True)
class Writes:
    """What was written to make a checkpoint: node → values, and where that was learnt."""

    nodes: dict[str, Any]
    source: WritesSource
    known_nodes: bool = True  # False: a delta whose node is not known (under the key "")


def checkpoint_interrupts(state: ThreadState) -> list[dict[str, Any]]:
    """Interrupts waiting at this checkpoint (top-level, else from its tasks)."""
    if state.interrupts:
        return list(state.interrupts)
    return [interrupt for task in state.tasks for interrupt in task.interrupts]


def checkpoint_writes(state: ThreadState, parent: ThreadState | None) -> Writes:
    """What was written to make `state` (see the module docstring for the order)."""
    if state.writes:
        return Writes(dict(state.writes), "metadata")
    if state.source == "input":
        for task in state.tasks:
            if task.name == START_NODE and task.result is not None:
                return Writes({INPUT_NODE: task.result}, "input")
        return Writes({INPUT_NODE: {}}, "input")
    before = parent.values if parent is not None else {}
    if parent is not None:
        ran = {task.name: task.result for task in parent.tasks if task.result is not None}
        if ran and _agrees(before, ran, state.values):
            return Writes(
                {
                    node: _with_message_ids(result, before, state.values)
                    for node, result in ran.items()
                },
                "tasks",
            )
        if state.source == "loop" and len(ran) == 1:
            # The node ran, but its result is not what made this checkpoint: a replay
            # from the same parent (the parent keeps one result per task) or a reducer
            # that transforms what it gets. The node is right; the values come from
            # the difference.
            return Writes({next(iter(ran)): delta_values(before, state.values)}, "delta")
    return Writes({"": delta_values(before, state.values)}, "delta", known_nodes=False)


def _agrees(before: Any, writes: Mapping[str, Any], after: Any) -> bool:
    """Whether `writes` applied to `before` can give `after` (every changed key written,
    every written value present in `after`)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return False
    written: set[str] = set()
    for value in writes.values():
        if not isinstance(value, Mapping):
            return False
        for key, item in value.items():
            written.add(key)
            if key not in after or not _contains(after[key], item):
                return False
    changed = {key for key in after if before.get(key) != after[key]}
    return changed <= written


def _contains(result: Any, written: Any) -> bool:
    if result == written:
        return True
    if isinstance(result, list) and isinstance(written, list):
        if is_message_list(result):
            # A reducer may add ids to written messages: compare by content.
            contents = [message.get("content") for message in result]
            return all(
                isinstance(item, Mapping) and item.get("content") in contents for item in written
            )
        return len(written) <= len(result) and result[len(result) - len(written) :] == written
    return False


def _with_message_ids(result: Any, before: Any, after: Any) -> Any:
    """A node's result with message lists replaced by the messages as stored (with the ids
    the reducer gave them), so replaying the write gives the same ids."""
    if not isinstance(result, Mapping) or not isinstance(after, Mapping):
        return result
    fixed = dict(result)
    for key, value in result.items():
        stored = after.get(key)
        if isinstance(value, list) and isinstance(stored, list) and is_message_list(stored):
            old = before.get(key) if isinstance(before, Mapping) else None
            fixed[key] = _new_messages(old if isinstance(old, list) else [], stored)
    return fixed


def _new_messages(before: list[Any], after: list[Any]) -> list[Any]:
    old = {m["id"]: m for m in before if is_message(m)}
    return [m for m in after if old.get(m["id"]) != m]


def delta_values(before: Any, after: Any) -> dict[str, Any]:
    """An update that turns `before` into `after` through LangGraph's usual reducers.

    Changed keys only. A message list gives the new or changed messages (add_messages
    merges by id); another list that grows at the end gives the new items (operator.add);
    anything else the new value. A key that disappeared cannot be written: it is left out.
    """
    if not isinstance(after, Mapping):
        return {}
    old = before if isinstance(before, Mapping) else {}
    delta: dict[str, Any] = {}
    for key, value in after.items():
        previous = old.get(key)
        if key in old and previous == value:
            continue
        if isinstance(value, list) and isinstance(previous, list):
            if is_message_list(value):
                delta[key] = _new_messages(previous, value)
                continue
            if previous and value[: len(previous)] == previous:
                delta[key] = value[len(previous) :]
                continue
        delta[key] = value
    return delta
