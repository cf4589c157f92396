"""The Timeline tab's model: supersteps from checkpoint times, node spans from streamed
task events (the waterfall drawn from them: tests/ui/thread_view/test_timeline_view.py)."""

from __future__ import annotations

from datetime import timedelta

from agent_tui.threads.timeline import TaskClock, build_timeline, slowest
from tests.support.timelines import BRANCH, T0


def test_each_checkpoint_is_a_superstep_timed_from_its_parent() -> None:
    steps = build_timeline(BRANCH)
    assert [(s.step, s.label) for s in steps] == [
        (-1, "__input__"),
        (0, "__start__"),
        (1, "slow_model"),
        (2, "tools"),
    ]
    assert [round(s.duration, 2) for s in steps] == [0.0, 0.01, 2.0, 0.1]
    assert [round(s.start, 2) for s in steps] == [0.0, 0.0, 0.01, 2.01]
    worst = slowest(steps)
    assert worst is not None and worst.label == "slow_model"


def test_tasks_and_checkpoints_events_are_timed_on_arrival() -> None:
    clock = TaskClock()
    clock.observe("tasks", {"id": "t1", "name": "agent", "input": {}}, now=T0)
    clock.observe(
        "tasks",
        {"id": "t1", "name": "agent", "result": {}, "error": None},
        now=T0 + timedelta(seconds=1.5),
    )
    clock.observe(
        "checkpoints",
        {"config": {"configurable": {"checkpoint_id": "c9"}}, "metadata": {"step": 3}},
        now=T0 + timedelta(seconds=1.6),
    )
    [task] = clock.by_checkpoint["c9"]
    assert task.name == "agent" and task.ended is not None
    assert (task.ended - task.started).total_seconds() == 1.5
