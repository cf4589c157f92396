"""A thread's checkpoints as a waterfall of supersteps, so the slow node is obvious. Headless.

Each checkpoint of one branch (oldest first) is one superstep: the nodes that wrote it
and how long they ran — from the moment the work began to the checkpoint's own time
(`created_at`, set by the server when the checkpoint was saved), so no tracing service is
needed. The work began at the parent checkpoint when both were written by the same run
(`metadata.run_id`); a checkpoint that starts a run (a resume after a breakpoint, a
replay, the next message) began when its run did (`run_starts`: the run records'
`created_at`), never at a parent written before a pause. A checkpoint a person wrote
(`update`, `fork`: an edited state) is no node's time at all. Time that is nobody's
(paused, editing, between runs) is `waited`: said, and left off the time axis.

When the run streamed in this session, `TaskClock` knows better: it reads the run's
`debug` events (task start and result, with the server's timestamps) or, failing that,
its `tasks` events (timed on arrival), and gives each node of a superstep its own span —
parallel nodes then show side by side instead of as one block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from agent_tui.threads.history import HistoryRow


@dataclass(frozen=True, slots=True)
class TaskSpan:
    """One node's run inside a superstep, in seconds since the timeline's start."""

    name: str
    start: float
    duration: float
    error: bool = False


@dataclass(frozen=True, slots=True)
class TimelineStep:
    """One checkpoint of the branch: what ran to make it, when, and for how long."""

    checkpoint_id: str
    step: int | None
    source: str | None
    nodes: tuple[str, ...]  # the writers, else "(keys)" of an update, else ()
    start: float  # seconds of running time before it (pauses left out)
    duration: float  # seconds its nodes ran (0 when not known: see `timed`)
    tasks: tuple[TaskSpan, ...] = ()  # per node, when the run streamed in this session
    waited: float = 0.0  # seconds before it that were no node's (paused, between runs)
    timed: bool = True  # False: a person wrote it, or its run's start is not known
    run_id: str | None = None  # the run that wrote it (`metadata.run_id`)
    began_at: datetime | None = None  # when its nodes began (timed steps), on the clock

    @property
    def label(self) -> str:
        return ", ".join(self.nodes) if self.nodes else (self.source or "")


PERSON_SOURCES = frozenset({"update", "fork"})  # checkpoints written by update_state


def parse_time(text: str | None) -> datetime | None:
    """A server timestamp (ISO 8601) as an aware UTC datetime; None if it does not parse."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def run_id_of(row: HistoryRow) -> str | None:
    """The run that wrote the checkpoint (`metadata.run_id`; None for `update_state`)."""
    return row.run_id


def runs_to_ask(branch: Sequence[HistoryRow]) -> set[str]:
    """The runs whose start `build_timeline` needs: those whose first checkpoint on the
    branch follows another run's (or a person's) checkpoint and is a node's work (a run's
    input checkpoint is saved as the run starts: it times itself)."""
    wanted: set[str] = set()
    for parent, row in pairwise(branch):
        run_id = run_id_of(row)
        if run_id and run_id != run_id_of(parent) and row.source == "loop":
            wanted.add(run_id)
    return wanted


def _began(
    row: HistoryRow,
    parent: HistoryRow | None,
    parent_at: datetime | None,
    at: datetime,
    run_starts: Mapping[str, datetime],
) -> datetime | None:
    """When the work that wrote `row` began; None when no node's work wrote it or the
    start is not known."""
    if parent is None or parent_at is None:
        return at  # the first checkpoint shown: nothing before it to time
    if row.source in PERSON_SOURCES:
        return None
    run_id = run_id_of(row)
    if run_id == run_id_of(parent):
        return parent_at  # one run (or a server that does not say: nothing to tell apart)
    started = run_starts.get(run_id) if run_id else None
    if started is not None:
        # A queued run starts when the run before it ends, after it was made.
        return min(at, max(started, parent_at))
    return at if row.source == "input" else None  # a run's input is saved as it starts


def build_timeline(
    branch: Sequence[HistoryRow],
    spans: Mapping[str, Sequence[TimedTask]] | None = None,
    run_starts: Mapping[str, datetime] | None = None,
) -> list[TimelineStep]:
    """The branch's checkpoints (oldest first) as supersteps; `spans`: task timings by
    the checkpoint id they made (from `TaskClock.by_checkpoint`); `run_starts`: run id →
    when it was made (for the runs `runs_to_ask` names)."""
    times = [parse_time(row.created_at) for row in branch]
    known = [t for t in times if t is not None]
    if not known:
        return []
    steps: list[TimelineStep] = []
    clock = 0.0  # running time so far
    parent: HistoryRow | None = None
    parent_at: datetime | None = None
    for row, moment in zip(branch, times, strict=True):
        at = moment or parent_at or min(known)
        began = _began(row, parent, parent_at, at, run_starts or {})
        finished = [task for task in (spans or {}).get(row.checkpoint_id, ()) if task.ended]
        gap = (at - parent_at).total_seconds() if parent_at is not None else 0.0
        if began is not None:
            anchor, duration = began, max(0.0, (at - began).total_seconds())
            waited = (began - parent_at).total_seconds() if parent_at is not None else 0.0
        elif finished:  # not timed by checkpoints: the streamed task events time it
            anchor = min(task.started for task in finished)
            ended = max(task.ended for task in finished if task.ended is not None)
            duration = max(0.0, (ended - anchor).total_seconds())
            waited = gap - duration
        else:
            anchor, duration, waited = at, 0.0, gap
        tasks = tuple(
            TaskSpan(
                task.name,
                clock + max(0.0, (task.started - anchor).total_seconds()),
                max(0.0, (task.ended - task.started).total_seconds()),
                task.error,
            )
            for task in finished
            if task.ended is not None
        )
        nodes = row.writers or (
            ("(" + ", ".join(row.written_keys) + ")",) if row.written_keys else ()
        )
        steps.append(
            TimelineStep(
                checkpoint_id=row.checkpoint_id,
                step=row.step,
                source=row.source,
                nodes=nodes,
                start=clock,
                duration=duration,
                tasks=tasks,
                waited=max(0.0, waited),
                timed=began is not None or bool(finished),
                run_id=run_id_of(row),
                began_at=anchor if began is not None or finished else None,
            )
        )
        clock += duration
        parent, parent_at = row, at
    return steps


def node_seconds(
    steps: Sequence[TimelineStep], checkpoint_ids: set[str]
) -> dict[str, float | None]:
    """How long each node ran in the steps that made `checkpoint_ids`, as the Timeline
    says it: its own span when the run streamed its tasks here, else its superstep's
    time (None when not known); a node's latest turn counts."""
    seconds: dict[str, float | None] = {}
    for step in steps:
        if step.checkpoint_id not in checkpoint_ids:
            continue
        spans = {task.name: task.duration for task in step.tasks}
        for node in step.nodes:
            seconds[node] = spans.get(node, step.duration if step.timed else None)
    return seconds


def slowest(steps: Sequence[TimelineStep]) -> TimelineStep | None:
    """The superstep that took longest (None when nothing took any time)."""
    candidates = [s for s in steps if s.duration > 0]
    return max(candidates, key=lambda s: s.duration) if candidates else None


def waited(steps: Sequence[TimelineStep]) -> float:
    """Seconds of the branch that were no node's (paused, editing, between runs)."""
    return sum(step.waited for step in steps)


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    return f"{int(seconds // 60)}m {seconds % 60:04.1f}s"


@dataclass(slots=True)
class TimedTask:
    name: str
    step: int | None
    started: datetime
    ended: datetime | None = None
    error: bool = False


@dataclass
class TaskClock:
    """Task start/end times of the runs streamed in this session, by the checkpoint each
    superstep made. Feed it every run event (`observe(mode, data)`)."""

    by_checkpoint: dict[str, list[TimedTask]] = field(default_factory=dict)
    _open: dict[str, TimedTask] = field(default_factory=dict)  # task id → task
    _done: dict[int | None, list[TimedTask]] = field(default_factory=dict)  # step → tasks

    def observe(self, mode: str, data: Any, now: datetime | None = None) -> None:
        """One run event: `mode` is the SSE event name (`debug`, `tasks`, `checkpoints`,
        subgraph events as `mode|namespace` are ignored: their steps are their own)."""
        if not isinstance(data, Mapping) or "|" in mode:
            return
        arrived = now or datetime.now(UTC)
        if mode == "debug":
            kind, payload = data.get("type"), data.get("payload")
            stamp = parse_time(data.get("timestamp")) or arrived
            step = data.get("step") if isinstance(data.get("step"), int) else None
            if isinstance(payload, Mapping):
                self._seen(str(kind), payload, stamp, step)
        elif mode == "tasks":
            kind = "task_result" if "result" in data or "error" in data else "task"
            self._seen(kind, data, arrived, None)
        elif mode == "checkpoints":
            self._seen("checkpoint", data, arrived, _step_of(data))

    def _seen(self, kind: str, payload: Mapping[str, Any], at: datetime, step: int | None) -> None:
        task_id = str(payload.get("id") or "")
        if kind == "task" and task_id:
            self._open[task_id] = TimedTask(str(payload.get("name") or "?"), step, at)
        elif kind == "task_result" and task_id in self._open:
            task = self._open.pop(task_id)
            task.ended = at
            task.error = bool(payload.get("error"))
            self._done.setdefault(task.step, []).append(task)
        elif kind == "checkpoint":
            checkpoint_id = _checkpoint_id_of(payload)
            step = step if step is not None else _step_of(payload)
            if checkpoint_id is None:
                return
            # The tasks that finished since the last checkpoint made this one.
            finished = self._done.pop(step, []) if step in self._done else []
            if not finished and None in self._done:  # `tasks` events carry no step
                finished = self._done.pop(None)
            if finished:
                self.by_checkpoint.setdefault(checkpoint_id, []).extend(finished)


def _checkpoint_id_of(payload: Mapping[str, Any]) -> str | None:
    config = payload.get("config")
    if isinstance(config, Mapping):
        configurable = config.get("configurable")
        if isinstance(configurable, Mapping) and configurable.get("checkpoint_id"):
            return str(configurable["checkpoint_id"])
    checkpoint = payload.get("checkpoint")
    if isinstance(checkpoint, Mapping) and checkpoint.get("checkpoint_id"):
        return str(checkpoint["checkpoint_id"])
    return None


def _step_of(payload: Mapping[str, Any]) -> int | None:
    metadata = payload.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("step"), int):
        return int(metadata["step"])
    return None
