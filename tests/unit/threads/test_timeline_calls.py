"""Model calls on the Timeline: each inside the superstep its node and run made, at its
offset in that superstep, a subgraph's call inside the node that ran the subgraph."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from agent_tui.threads.timeline import TimelineStep
from agent_tui.threads.timeline_calls import place_model_calls

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


@dataclass
class Call:
    node: str | None
    start: float
    end: float
    graph_run_id: str | None = "run-1"
    checkpoint_ns: str | None = None
    run_type: str = "llm"
    model: str | None = "gpt-4o-mini"
    status: str = "success"

    @property
    def start_time(self) -> datetime:
        return T0 + timedelta(seconds=self.start)

    @property
    def end_time(self) -> datetime:
        return T0 + timedelta(seconds=self.end)


def step(checkpoint_id: str, node: str, began: float, duration: float, at: float) -> TimelineStep:
    """A superstep of `node` that began `began` s after T0, drawn at `at` on the axis."""
    return TimelineStep(
        checkpoint_id=checkpoint_id, step=None, source="loop", nodes=(node,), start=at,
        duration=duration, run_id="run-1", began_at=T0 + timedelta(seconds=began),
    )  # fmt: skip


def test_each_model_call_goes_inside_its_own_superstep() -> None:
    steps = [
        step("c1", "agent", 0, 2, 0),
        step("c2", "tools", 2, 1, 2),
        step("c3", "agent", 3, 2, 3),
    ]
    calls = [
        Call("agent", 0.5, 1.5),
        Call("tools", 2.1, 2.2, run_type="tool"),
        Call("agent", 3.2, 4.0),
    ]
    placed = place_model_calls(steps, calls)
    assert set(placed) == {"c1", "c3"}
    assert (placed["c1"][0].start, placed["c1"][0].duration) == (0.5, 1.0)
    assert placed["c3"][0].start == 3.2 and placed["c3"][0].model == "gpt-4o-mini"


def test_a_subgraphs_call_is_inside_the_node_that_ran_it() -> None:
    steps = [step("c1", "research", 0, 4, 0)]
    inner = Call("search_agent", 1, 2, checkpoint_ns="research:1f0|search_agent:7a2")
    assert [span.start for span in place_model_calls(steps, [inner])["c1"]] == [1.0]


def test_a_call_of_another_run_or_far_from_any_step_is_left_out() -> None:
    steps = [step("c1", "agent", 0, 2, 0)]
    assert place_model_calls(steps, [Call("agent", 0.5, 1, graph_run_id="run-2")]) == {}
    assert place_model_calls(steps, [Call("agent", 30, 31)]) == {}
