"""The Timeline tab's waterfall: the slow node stands out, each node of a superstep has its
own span, every bar fits the view, and node names from the server are inert text."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from agent_tui.threads.timeline import TaskClock, build_timeline
from agent_tui.tui.screens.thread_view.timeline_view import timeline_renderable
from tests.support.hostile_text import EVERYTHING, terminal_controls
from tests.support.timelines import BRANCH, T0, row


def test_the_waterfall_shows_the_slow_node_at_a_glance() -> None:
    text = timeline_renderable(build_timeline(BRANCH), width=100)
    lines = text.plain.splitlines()
    slow_line = next(line for line in lines if "slow_model" in line)
    fast_line = next(line for line in lines if " tools " in line)
    # The bar of the step that took 2 s is ~20 times the one that took 0.1 s.
    assert slow_line.count("█") >= 10 * fast_line.count("█") >= 10
    assert "2.00 s" in slow_line and "100 ms" in fast_line
    assert lines[-1].startswith("slowest: step 1 slow_model (2.00 s of 2.11 s)")
    styles = {
        str(span.style) for span in text.spans if "slow_model" in text.plain[span.start : span.end]
    }
    assert "bold red" in styles or "bold" in styles


def test_node_names_from_the_server_are_inert_text() -> None:
    steps = build_timeline([row("a", 0, 0.0, "x"), row("b", 1, 1.0, EVERYTHING)])
    text = timeline_renderable(steps, width=120)
    assert terminal_controls(text.plain) == []
    assert "[@click=app.quit]" in text.plain  # shown, literally


def debug(kind: str, step: int, seconds: float, payload: dict[str, Any]) -> dict[str, Any]:
    stamp = (T0 + timedelta(seconds=seconds)).isoformat()
    return {"type": kind, "step": step, "timestamp": stamp, "payload": payload}


def checkpoint_payload(checkpoint_id: str) -> dict[str, Any]:
    return {"config": {"configurable": {"checkpoint_id": checkpoint_id}}, "metadata": {}}


def test_debug_events_give_each_node_of_a_superstep_its_own_span() -> None:
    clock = TaskClock()
    # Step 1 runs two nodes in parallel: one fast, one slow that fails.
    clock.observe("debug", debug("checkpoint", 0, 0.01, checkpoint_payload("c0")))
    clock.observe("debug", debug("task", 1, 0.02, {"id": "t1", "name": "slow_model"}))
    clock.observe("debug", debug("task", 1, 0.02, {"id": "t2", "name": "lookup"}))
    clock.observe("debug", debug("task_result", 1, 0.30, {"id": "t2", "name": "lookup"}))
    clock.observe(
        "debug", debug("task_result", 1, 2.0, {"id": "t1", "name": "slow_model", "error": "Boom"})
    )
    clock.observe("debug", debug("checkpoint", 1, 2.01, checkpoint_payload("c1")))
    # A subgraph's events (`debug|ns`) have steps of their own: not mixed in.
    clock.observe("debug|sub:1", debug("task", 1, 0.5, {"id": "t9", "name": "inner"}))
    assert set(clock.by_checkpoint) == {"c1"}

    steps = build_timeline(BRANCH, clock.by_checkpoint)
    spans = {task.name: task for task in steps[2].tasks}
    assert set(spans) == {"slow_model", "lookup"}
    assert round(spans["lookup"].duration, 2) == 0.28 and not spans["lookup"].error
    assert round(spans["slow_model"].duration, 2) == 1.98 and spans["slow_model"].error
    text = timeline_renderable(steps, width=100).plain
    assert "  lookup" in text and "  slow_model" in text


def test_every_bar_fits_a_narrow_view() -> None:
    # A split thread view leaves the tab ~50 columns: the slowest bar must be in view.
    for width in (52, 80, 140):
        lines = timeline_renderable(build_timeline(BRANCH), width=width).plain.splitlines()
        assert max(len(line) for line in lines[:-2]) <= width, width
        slow_line = next(line for line in lines if "slow_model" in line)
        assert "█" in slow_line
