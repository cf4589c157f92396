"""The Timeline tab's model: supersteps from checkpoint times, node spans from streamed
task events, runs and pauses (the waterfall drawn from them:
tests/ui/thread_view/test_timeline_view.py)."""

from __future__ import annotations

from datetime import timedelta

from agent_tui.threads.timeline import TaskClock, build_timeline, runs_to_ask, slowest
from tests.support.timelines import BRANCH, PAUSED, T0, at, checkpoint_payload, debug, row


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


def test_a_queued_run_starts_when_the_one_before_it_ends() -> None:
    # Run B was made (enqueued) at 1.0 s while run A still ran; it started at A's end.
    branch = [
        row("q-input", -1, 0.0, "__input__", source="input", run="A"),
        row("q0", 0, 2.0, "model", run="A"),
        row("q1", 1, 2.5, "model", run="B"),
    ]
    steps = build_timeline(branch, run_starts={"B": at(1.0)})
    assert round(steps[-1].duration, 2) == 0.5 and steps[-1].waited == 0


def test_a_new_runs_input_is_not_timed_across_the_gap_before_it() -> None:
    # The next message, typed 30 s after the first run ended: a run's input checkpoint is
    # saved as the run starts, so no run record is needed.
    branch = [
        *PAUSED[:2],
        row("n-input", 1, 30.01, "__input__", source="input", run="B"),
        row("n1", 2, 31.01, "model", run="B"),
    ]
    assert runs_to_ask(branch) == set()
    steps = build_timeline(branch)
    assert [round(s.duration, 2) for s in steps] == [0.0, 0.01, 0.0, 1.0]
    assert round(steps[2].waited, 2) == 30.0


def test_streamed_task_events_time_a_node_whose_run_start_is_not_known() -> None:
    clock = TaskClock()
    clock.observe("debug", debug("task", 2, 20.01, {"id": "t1", "name": "tools"}))
    clock.observe("debug", debug("task_result", 2, 20.04, {"id": "t1", "name": "tools"}))
    clock.observe("debug", debug("checkpoint", 2, 20.05, checkpoint_payload("p2")))
    steps = build_timeline(PAUSED, clock.by_checkpoint)
    tools = steps[-1]
    assert tools.timed and round(tools.duration, 2) == 0.03
    assert round(tools.start, 2) == 2.01 and round(tools.tasks[0].start, 2) == 2.01
