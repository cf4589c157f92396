"""What a paused thread waits for: answers to `interrupt()`s, or a breakpoint (headless).

A run that stops early leaves the thread `interrupted` either way; the thread's state
tells the two apart. Interrupts are listed by the tasks that asked (inside a subgraph
too, with `get_state(..., subgraphs=True)`: the path names each graph's node on the way
down). A breakpoint leaves no trace in the state but `next`: which one stopped the run
comes from the breakpoints the run was given and the nodes it ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from agent_tui.client.models import ThreadState, ThreadTask

Breakpoints = str | Sequence[str] | None
"""Node names, or `"*"` (every node), as a run's `interrupt_before` / `interrupt_after`."""


@dataclass(frozen=True, slots=True)
class WaitingInterrupt:
    """One `interrupt(value)` waiting for its answer."""

    path: tuple[str, ...]  # the node that asked, after its parent graphs' nodes
    interrupt_id: str | None
    value: Any


@dataclass(frozen=True, slots=True)
class Waiting:
    """Where a thread stopped. `interrupts`: questions waiting for an answer; without
    any, a breakpoint: `pause` before or after `node` (None: a breakpoint the run was
    not given, e.g. compiled into the graph)."""

    next: tuple[str, ...]
    interrupts: tuple[WaitingInterrupt, ...] = ()
    pause: Literal["before", "after"] | None = None
    node: str | None = None


def waiting_of(
    state: ThreadState,
    *,
    before: Breakpoints = None,
    after: Breakpoints = None,
    ran: Sequence[str] = (),
) -> Waiting:
    """What `state` (a thread's latest) waits for; `before` / `after`: the breakpoints
    of the run that stopped, `ran`: the nodes of its last step."""
    interrupts = tuple(_interrupts(state.tasks, ()))
    if not interrupts and state.interrupts:
        interrupts = tuple(_waiting((), item) for item in state.interrupts)
    next_nodes = tuple(state.next)
    if interrupts:
        return Waiting(next_nodes, interrupts)
    for node in next_nodes:
        if _matches(before, node):
            return Waiting(next_nodes, pause="before", node=node)
    for node in ran:
        if _matches(after, node):
            return Waiting(next_nodes, pause="after", node=node)
    return Waiting(next_nodes)


def _matches(breakpoints: Breakpoints, node: str) -> bool:
    if breakpoints is None:
        return False
    if isinstance(breakpoints, str):
        return breakpoints == "*" or breakpoints == node
    return node in breakpoints


def _interrupts(tasks: list[ThreadTask], path: tuple[str, ...]) -> list[WaitingInterrupt]:
    found: list[WaitingInterrupt] = []
    for task in tasks:
        inner = _subgraph_tasks(task)
        # A subgraph's interrupt is also listed on its parent's task: the deepest task
        # that lists it says where it was asked.
        deeper = _interrupts(inner, (*path, task.name)) if inner else []
        found += deeper or [_waiting((*path, task.name), item) for item in task.interrupts]
    return found


def _subgraph_tasks(task: ThreadTask) -> list[ThreadTask]:
    if not isinstance(task.state, dict) or not task.state.get("tasks"):
        return []
    try:
        return ThreadState.model_validate(task.state).tasks
    except ValidationError:
        return []  # not a state (a checkpoint reference, say): nothing deeper to read


def _waiting(path: tuple[str, ...], item: Any) -> WaitingInterrupt:
    if not isinstance(item, dict):
        return WaitingInterrupt(path, None, item)
    interrupt_id = item.get("id")
    return WaitingInterrupt(
        path, interrupt_id if isinstance(interrupt_id, str) else None, item.get("value")
    )
