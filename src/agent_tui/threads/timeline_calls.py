"""Model calls on the Timeline: each traced model call placed inside the superstep whose
node made it, on the same axis of running time (`timeline.build_timeline`). Headless.

A call belongs to the superstep that (a) its run wrote (the agent server's run id, when
both say it), (b) lists its node among its writers — a call made inside a subgraph counts
as the node that ran the subgraph (the first name of its checkpoint namespace) — and
(c) was running when the call began (the checkpoint's times and the trace's come from
the same server's clock; `SLACK` absorbs their rounding). Of several, the one whose span
holds the start, else the nearest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agent_tui.threads.timeline import TimelineStep

SLACK = 0.5  # seconds a call's start may lie outside its superstep's span


class TimedCall(Protocol):
    """A traced call as `traces.calls.CallSummary` gives it."""

    @property
    def run_type(self) -> str: ...
    @property
    def node(self) -> str | None: ...
    @property
    def checkpoint_ns(self) -> str | None: ...
    @property
    def graph_run_id(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def start_time(self) -> datetime | None: ...
    @property
    def end_time(self) -> datetime | None: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True, slots=True)
class CallSpan:
    """One model call inside a superstep, in seconds on the timeline's axis."""

    model: str
    start: float
    duration: float
    error: bool = False


def top_node(call: TimedCall) -> str | None:
    """The node of the top graph that made the call (for a subgraph's, the node that ran
    the subgraph: ``chat:1f0…|agent:7a2…`` → ``chat``)."""
    namespace = call.checkpoint_ns or ""
    if namespace:
        return namespace.split("|", 1)[0].split(":", 1)[0] or call.node
    return call.node


def _distance(step: TimelineStep, start: datetime) -> float:
    """Seconds from the step's span to ``start`` (0 inside it)."""
    assert step.began_at is not None
    offset = (start - step.began_at).total_seconds()
    if offset < 0:
        return -offset
    return max(0.0, offset - step.duration)


def place_model_calls(
    steps: Sequence[TimelineStep], calls: Sequence[TimedCall]
) -> Mapping[str, list[CallSpan]]:
    """The model calls of ``calls`` by the checkpoint id of the superstep they ran in
    (calls that fit no superstep shown are left out)."""
    placed: dict[str, list[CallSpan]] = {}
    timed = [step for step in steps if step.began_at is not None]
    for call in calls:
        started = call.start_time
        if call.run_type != "llm" or started is None:
            continue
        node = top_node(call)
        fits = [
            (_distance(step, started), index, step)
            for index, step in enumerate(timed)
            if node in step.nodes
            and (step.run_id is None or call.graph_run_id in (None, step.run_id))
        ]
        distance, _, step = min(fits, default=(SLACK + 1, 0, None))
        if step is None or step.began_at is None or distance > SLACK:
            continue
        offset = min(step.duration, max(0.0, (started - step.began_at).total_seconds()))
        took = (call.end_time - started).total_seconds() if call.end_time else 0.0
        placed.setdefault(step.checkpoint_id, []).append(
            CallSpan(
                model=call.model or "model",
                start=step.start + offset,
                duration=max(0.0, min(took, step.duration - offset)),
                error=call.status == "error",
            )
        )
    return placed
