"""Where a thread stands inside its subgraphs. Headless.

`GET /threads/{id}/state?subgraphs=true` nests, in each pending task that runs a
subgraph, that subgraph's own state (`task.state`: values, next, tasks, its checkpoint
with `checkpoint_ns` like `chat:<task id>`), to any depth. `subgraph_frames` walks it
depth first; `paused_at` names the innermost place the thread waits ("chat > approve"),
which the top-level state alone cannot tell (its `next` says only "chat").

The server nests a state under every pending task that runs a subgraph, whether the
checkpoint is in it or not (langgraph reads the subgraph's newest checkpoint in the
task's namespace): a task not begun (paused before its node) gets an empty state with
no checkpoint, and a task that already ran (any older checkpoint) gets the state the
subgraph ended in — `next: ["tools"]` even, when it left by a handoff to the parent
(`Command(graph=PARENT)`, a swarm's). Such a task has its `result`. So a frame is
`begun` only with a checkpoint of its own, and the thread is inside it only while its
task and every task above it have no result yet (`open`).

A subgraph's own checkpoints are kept apart from the thread's, in the namespace its task
names (`task.checkpoint.checkpoint_ns`): `SubgraphHistory` holds those of one task, read
with `threads.get_history(checkpoint_ns=…)`, for the State tab to list under it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.client.models import ThreadState
from agent_tui.text.short_ids import short_checkpoint_id
from agent_tui.text.time_text import utc_seconds_of_text


@dataclass(frozen=True, slots=True)
class SubgraphFrame:
    """One subgraph's state under a pending task of its parent."""

    path: tuple[str, ...]  # task names from the top graph down: ("chat",), ("chat", "inner")
    namespace: str  # the subgraph checkpoint's namespace, e.g. "chat:45fa39c4-…"
    task_id: str
    state: ThreadState
    open: bool = True  # its task (and each task above it) has no result: the thread is in it

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def where(self) -> str:
        return " > ".join(self.path)


def _nested_state(value: Any) -> ThreadState | None:
    if isinstance(value, ThreadState):
        return value
    if isinstance(value, dict) and ("values" in value or "next" in value):
        return ThreadState.model_validate(value)
    return None  # null, or a bare checkpoint config (the server's `subgraphs=false` form)


def subgraph_frames(
    state: ThreadState, path: tuple[str, ...] = (), *, open: bool = True
) -> list[SubgraphFrame]:
    """Every subgraph state nested in `state`'s tasks that has begun (has a checkpoint of
    its own), parents before children."""
    frames: list[SubgraphFrame] = []
    for task in state.tasks:
        inner = _nested_state(task.state)
        if inner is None or inner.checkpoint_id is None:
            continue  # not begun: the checkpoint is before the task's node
        here = (*path, task.name)
        still = open and task.result is None
        frames.append(
            SubgraphFrame(here, inner.checkpoint.checkpoint_ns, task.id, inner, open=still)
        )
        frames.extend(subgraph_frames(inner, here, open=still))
    return frames


def paused_at(state: ThreadState) -> str | None:
    """Where in its subgraphs the checkpoint stands: the innermost subgraph its pending
    tasks are in, with what that subgraph runs next ("chat > approve"); None when it is
    in none (nothing begun, or every subgraph's task has finished)."""
    inside = [frame for frame in subgraph_frames(state) if frame.open]
    if not inside:
        return None
    deepest = max(inside, key=lambda frame: frame.depth)
    upcoming = (", ".join(deepest.state.next),) if deepest.state.next else ()
    return " > ".join((*deepest.path, *upcoming))


def says_less_than(new: ThreadState, shown: ThreadState) -> bool:
    """Whether `new` is the checkpoint `shown` is, read without its subgraphs (the
    history's copy of a checkpoint whose state was read again with them): everything it
    says is shown already. A checkpoint's own state does not change, but what is pending
    on it may (an interrupt written since): then it says more, and this is False."""
    if new.checkpoint_id != shown.checkpoint_id or subgraph_frames(new):
        return False
    return bool(subgraph_frames(shown)) and _without_task_states(new) == _without_task_states(shown)


def _without_task_states(state: ThreadState) -> dict[str, Any]:
    """The state without what the two reads put apart in each task: its subgraph's state
    (read with subgraphs) or where that subgraph keeps its checkpoints (read without)."""
    raw = dict(state.raw())
    raw["tasks"] = [{**task, "state": None, "checkpoint": None} for task in raw.get("tasks") or []]
    return raw


def frames_as_json(frames: list[SubgraphFrame]) -> dict[str, Any]:
    """The frames nested as the graph nests them, keyed by "task (namespace)", for a JSON view."""
    root: dict[str, Any] = {}
    holders: dict[tuple[str, ...], dict[str, Any]] = {(): root}
    for frame in frames:
        inner = frame.state
        entry: dict[str, Any] = {
            "step": inner.step,
            "next": list(inner.next),
            "values": inner.values,
        }
        if not frame.open:  # its newest checkpoint, not a place the thread waits
            entry["finished"] = True
        interrupts = [i for task in inner.tasks for i in task.interrupts] or inner.interrupts
        if interrupts:
            entry["interrupts"] = [i.get("value") for i in interrupts]
        parent = holders.get(frame.path[:-1], root)
        target = parent if parent is root else parent.setdefault("subgraphs", {})
        key = f"{frame.path[-1]} ({frame.namespace})" if frame.namespace else frame.path[-1]
        target[key] = entry
        holders[frame.path] = entry
    return root


@dataclass(frozen=True, slots=True)
class SubgraphHistory:
    """The checkpoints a subgraph wrote under one task of a parent checkpoint (the server
    keeps them apart, in the task's namespace; `threads.get_history(checkpoint_ns=…)`)."""

    task: str  # the parent's node that ran the subgraph
    namespace: str  # e.g. "chat:db4501b7-…"
    checkpoints: tuple[ThreadState, ...]  # most recent first

    def lines(self) -> list[str]:
        """One header line, then one line per checkpoint: step, source, what runs next,
        time (UTC) and the short checkpoint id."""
        count = len(self.checkpoints)
        lines = [f"{self.task}  namespace {self.namespace}  {count} checkpoint{'s' * (count != 1)}"]
        for state in self.checkpoints:
            step = "—" if state.step is None else str(state.step)
            upcoming = ", ".join(state.next) or "—"
            lines.append(
                f"  step {step:>3}  {state.source or '—':<6}  next {upcoming:<12}"
                f"  {utc_seconds_of_text(state.created_at)}"
                f"  {short_checkpoint_id(state.checkpoint_id)}"
            )
        return lines
