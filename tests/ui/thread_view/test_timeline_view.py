"""The Timeline tab's waterfall: the slow node stands out, each node of a superstep has its
own span, every bar fits the view, pauses are no node's time, and node names from the
server are inert text; the tab draws it at the width it has, as it opens and after a
resize."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from agent_tui.client import AgentServerClient
from agent_tui.threads.timeline import TaskClock, build_timeline, runs_to_ask, slowest
from agent_tui.tui.screens.thread_view.timeline_view import TimelineView, timeline_renderable
from tests.support.hostile_text import EVERYTHING, terminal_controls
from tests.support.screen import screen_text
from tests.support.thread_view import counter_thread, loaded, view_app
from tests.support.timelines import BRANCH, PAUSED, at, checkpoint_payload, debug, row
from tests.support.waiting import WaitFor


def test_the_waterfall_shows_the_slow_node_at_a_glance() -> None:
    text = timeline_renderable(build_timeline(BRANCH), width=100)
    lines = text.plain.splitlines()
    slow_line = next(line for line in lines if "slow_model" in line)
    fast_line = next(line for line in lines if " tools " in line)
    # The bar of the step that took 2 s is ~20 times the one that took 0.1 s.
    assert slow_line.count("█") >= 10 * fast_line.count("█") >= 10
    assert "2.00 s" in slow_line and "100 ms" in fast_line
    assert lines[-1].startswith("slowest: step 1 slow_model (2.00 s of 2.11 s running)")
    styles = {
        str(span.style) for span in text.spans if "slow_model" in text.plain[span.start : span.end]
    }
    assert "bold red" in styles or "bold" in styles


def test_node_names_from_the_server_are_inert_text() -> None:
    steps = build_timeline([row("a", 0, 0.0, "x"), row("b", 1, 1.0, EVERYTHING)])
    text = timeline_renderable(steps, width=120)
    assert terminal_controls(text.plain) == []
    assert "[@click=app.quit]" in text.plain  # shown, literally


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


def test_a_pause_at_a_breakpoint_is_no_nodes_time() -> None:
    assert runs_to_ask(PAUSED) == {"B"}
    steps = build_timeline(PAUSED, run_starts={"B": at(20.0)})
    tools = steps[-1]
    assert tools.label == "tools" and tools.timed
    assert round(tools.duration, 2) == 0.05 and round(tools.waited, 2) == 17.99
    assert round(tools.start, 2) == 2.01  # right after slow_model: the pause is off the axis
    worst = slowest(steps)
    assert worst is not None and worst.label == "slow_model"
    lines = timeline_renderable(steps, width=100).plain.splitlines()
    assert lines[-1] == "slowest: step 1 slow_model (2.00 s of 2.06 s running)"
    assert lines[-2].startswith("not counted: 17.99 s with nothing running")
    waited_at = next(i for i, line in enumerate(lines) if "⋯ 17.99 s with nothing running" in line)
    assert "tools" in lines[waited_at + 1]


def test_without_its_runs_start_the_resumed_node_is_not_timed() -> None:
    # The run record is gone (or not loaded yet): no time rather than the pause's.
    steps = build_timeline(PAUSED)
    tools = steps[-1]
    assert not tools.timed and tools.duration == 0 and round(tools.waited, 2) == 18.04
    tools_line = next(
        line for line in timeline_renderable(steps, width=100).plain.splitlines() if "tools" in line
    )
    assert "—" in tools_line and "18" not in tools_line


def test_editing_a_fork_is_no_nodes_time() -> None:
    # At step 1 the user forks (an `update` checkpoint, no run, saved 60 s later after
    # editing), then runs from it (run C, made at 90 s): its node ran 0.5 s.
    branch = [
        *BRANCH[:3],
        row("f-edit", 2, 62.01, source="update"),
        row("f-run", 3, 90.5, "tools", run="C"),
    ]
    assert runs_to_ask(branch) == {"C"}
    steps = build_timeline(branch, run_starts={"C": at(90.0)})
    edit, rerun = steps[-2:]
    assert not edit.timed and edit.duration == 0 and round(edit.waited, 2) == 60.0
    assert rerun.timed and round(rerun.duration, 2) == 0.5 and round(rerun.waited, 2) == 27.99
    worst = slowest(steps)
    assert worst is not None and worst.label == "slow_model"
    assert timeline_renderable(steps, width=100).plain.splitlines()[-1] == (
        "slowest: step 1 slow_model (2.00 s of 2.51 s running)"
    )


def _bars_end(app: App[Any]) -> int:
    """The screen column where the waterfall's bars end (-1: no bar painted)."""
    return max(line.rfind("█") for line in screen_text(app).splitlines())


async def test_the_waterfall_spans_the_tab_as_it_opens_and_after_each_resize(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    # The tab is at the right of the screen: the bars end at its last column (or just
    # before a scrollbar the view keeps), whatever size the tab had or opened at. Their
    # lengths are rounded to a cell: the real run's times may end them one cell short.
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=(140, 32)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        # Opened before the tab was ever laid out (as the snapshot opens it).
        screen.tabs.active = "tab-timeline"
        view = screen.query_one(TimelineView)
        await wait_for(
            pilot,
            lambda: len(view.steps) == 4 and not screen.timeline.runs_pending,
            what="the waterfall",
        )
        for width, height, scrollbar in [
            (140, 32, False),
            (120, 32, False),
            (200, 40, False),
            (100, 12, True),  # too short for it: a vertical scrollbar
            (140, 32, False),
        ]:
            if (width, height) != app.size:
                await pilot.resize_terminal(width, height)
            end = width - 1 - (2 if scrollbar else 0)

            def fits(end: int = end, scrollbar: bool = scrollbar) -> bool:
                return (
                    view.show_vertical_scrollbar == scrollbar
                    and not view.show_horizontal_scrollbar
                    and end - 1 <= _bars_end(app) <= end
                )

            await wait_for(pilot, fits, what=f"bars ending at column {end} of {width}")
            await pilot.pause()
            assert fits(), (width, height, _bars_end(app), view.scrollbars_enabled)


class _TimelineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TimelineView()


async def test_a_long_node_name_wraps_under_the_bars(wait_for: WaitFor) -> None:
    # `slowest:` with a long node name is wider than the view: it wraps, whole, rather
    # than widening the waterfall past the view (the bars still end at its edge, or at
    # its vertical scrollbar when it has one).
    steps = build_timeline([*BRANCH[:2], row("c1", 1, 2.01, "slow_model_" * 8), BRANCH[3]])
    app = _TimelineApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(TimelineView)
        view.show(steps)
        for height, scrollbar in [(20, False), (5, True), (20, False)]:
            if height != app.size.height:
                await pilot.resize_terminal(60, height)
            end = 59 - (2 if scrollbar else 0)

            def fits(end: int = end, scrollbar: bool = scrollbar) -> bool:
                return view.scrollbars_enabled == (scrollbar, False) and _bars_end(app) == end

            await wait_for(pilot, fits, what=f"bars ending at column {end}")
            await pilot.pause()
            assert fits(), (height, _bars_end(app), view.scrollbars_enabled)
        shown = " ".join(screen_text(app).split())
        assert "slowest: step 1 slow_model_slow_model_" in shown
        assert shown.endswith("(2.00 s of 2.11 s running)"), shown


async def test_the_waterfall_follows_a_run_made_while_the_view_is_open(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """A run made while the Timeline shows (here from elsewhere, seen by the status poll)
    adds its supersteps to the waterfall once its checkpoints load: the tab shows the
    whole branch, not the steps up to the checkpoint the history's cursor was on."""
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id, status_interval=0.2)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        screen.tabs.active = "tab-timeline"
        view = screen.query_one(TimelineView)
        await wait_for(pilot, lambda: len(view.steps) == 4, what="the first run's steps")
        async with client.runs.stream(thread.thread_id, "counter", input={"n": 1}) as run:
            async for _ in run:
                pass
        await wait_for(pilot, lambda: len(screen.history.rows) == 8, what="the new checkpoints")
        await wait_for(pilot, lambda: len(view.steps) == 8, what="the second run's steps")
        await pilot.pause()
        # The tab is right of the history pane: the part of each line after its border.
        painted = [line.split("│")[-1].split()[:2] for line in screen_text(app).splitlines()]
        assert ["6", "dbl"] in painted  # the second run's last superstep has its row
