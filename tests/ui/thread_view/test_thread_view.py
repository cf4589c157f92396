"""The thread view against the real agent server: history paging, state, diff, status."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Collapsible

from agent_tui.client import AgentServerClient
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.thread_runs import ThreadRunsScreen
from tests.support.hostile_screens import GRAPH as HOSTILE_GRAPH
from tests.support.hostile_screens import (
    NODE_SHAPES,
    WRAPPED_HEAD,
    WRAPPED_TAIL,
    drawn_inertly,
    hostile_assistant,
)
from tests.support.hostile_text import EVERYTHING, MARKER
from tests.support.screen import painted_control_codes, screen_text
from tests.support.shell import ShellHarness
from tests.support.thread_view import (
    SIZE,
    TICKS,
    counter_thread,
    loaded,
    long_thread,
    steps_shown,
    superstep,
    view_app,
)
from tests.support.threads import SHOWN, hostile_thread
from tests.support.waiting import WaitFor, workers_done


async def test_a_long_thread_opens_newest_first_and_pages_in_at_the_end(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await long_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the first rows")
        # The newest checkpoint first, selected, its state shown; the pages behind the
        # first screenful come in on their own, one page ahead of the cursor and no more.
        assert steps_shown(screen)[:3] == [TICKS, TICKS - 1, TICKS - 2]
        assert screen.checkpoint_view.state is not None
        assert screen.checkpoint_view.state.values["i"] == TICKS
        await wait_for(pilot, lambda: len(screen.history.rows) == 200, what="a page ahead")
        await pilot.pause(0.2)
        assert len(screen.history.rows) == 200
        assert steps_shown(screen)[:200] == list(range(TICKS, TICKS - 200, -1))
        assert "200+ checkpoints" in screen_text(app)

        await pilot.press("end")
        await wait_for(pilot, lambda: len(screen.history.rows) >= 300, what="the next page")
        assert steps_shown(screen)[200] == TICKS - 200
        await pilot.press("end")
        await wait_for(pilot, lambda: len(screen.history.rows) >= 400, what="a fourth page")
        # The cursor is near the end: the row under it shows its own state.
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == screen.selected_row.checkpoint_id,  # type: ignore[union-attr]
            what="the state of the row under the cursor",
        )
        row = screen.selected_row
        assert row is not None and screen.checkpoint_view.state is not None
        assert screen.checkpoint_view.state.values["i"] == row.step


async def test_selecting_shows_the_state_and_diffs_show_the_change(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        assert steps_shown(screen) == [2, 1, 0, -1]
        assert [row.wrote for row in screen.pane.visible_items] == [
            "dbl",
            "inc",
            "__start__",
            "__input__",
        ]
        # The newest first: n = (5 + 1) * 2, nothing next; the status is in the header.
        assert screen.checkpoint_view.state is not None
        assert screen.checkpoint_view.state.values == {"n": 12, "items": [5]}
        assert "idle" in str(screen.query_one("#thread-header").render())

        await pilot.press("down")  # step 1: inc wrote n = 6 and appended 5
        await wait_for(pilot, lambda: getattr(screen.checkpoint_view.state, "step", None) == 1)
        summary = str(screen.query_one("#checkpoint-summary").render())
        assert "Next       dbl" in summary and "Step       1" in summary
        tree = screen.query_one("#checkpoint-values-tree")
        labels = [str(node.label) for node in tree.root.children]  # type: ignore[attr-defined]
        assert labels[0] == "n: 6" and labels[1].startswith("items [1]")

        # The diff against its parent: n changed, 5 appended to items, inc wrote it.
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.diff_view.diff is not None, what="the diff")
        text = screen.diff_view.text
        assert "The parent → the selected checkpoint" in text
        assert "~ n: 5 → 6" in text
        assert "+ items: appended 1 item: [5]" in text
        assert 'next: ["inc"] → ["dbl"]' in text
        assert "inc: n: 6" in text

        # Mark step 0 (n = 5, no items), select step 2, diff against the mark.
        await pilot.press("end", "up")
        await pilot.press("m")
        assert screen.pane.marked == screen.history.rows[-2].checkpoint_id
        await pilot.press("home")
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: "marked" in screen.diff_view.text and "~ n: 5 → 12" in screen.diff_view.text,
            what="the diff against the mark",
        )
        assert "+ items: appended 1 item: [5]" in screen.diff_view.text
        assert 'next: ["inc"] → []' in screen.diff_view.text

        # Raw JSON and copy of the selected checkpoint.
        await pilot.press("c")
        assert app.copied == [screen.history.rows[0].checkpoint_id]
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen))
        await pilot.press("escape")


async def test_a_section_title_is_drawn_whole_as_its_count_changes(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        view = screen.checkpoint_view
        await wait_for(pilot, lambda: loaded(screen) and view.details_built, what="the sections")
        tasks = view.query_one("#checkpoint-tasks", Collapsible)
        # A row as wide as the section whatever its text: sized to "▶ Tasks" before its
        # count came, it kept that width under load and showed the count cut off.
        title = tasks.query_one("CollapsibleTitle")
        assert title.region.width == tasks.content_region.width
        assert "▶ Tasks (0)" in screen_text(app)  # the newest checkpoint: nothing next
        await pilot.press("down")  # step 1: dbl is next
        await wait_for(pilot, lambda: "▶ Tasks (1)" in screen_text(app), what="its one task")
        assert title.region.width == tasks.content_region.width


async def test_hostile_text_in_a_state_is_inert(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await hostile_thread(client, "thread-view")
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.pause()
        transcript = screen.checkpoint_view.transcript_text
        assert f"human\nhello {SHOWN}" in transcript
        assert f"ai\nanswer {SHOWN}" in transcript
        assert f"hello {SHOWN}" in screen_text(app)
        assert painted_control_codes(app) == []
        await pilot.click("#checkpoint-transcript", offset=(10, 1))
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.diff_view.diff is not None)
        await pilot.press("t")
        # Built as it is shown: looked at once the tree holds the checkpoints.
        await wait_for(
            pilot,
            lambda: screen.tabs.is_ready("tab-tree") and bool(screen.fork_tree.root.children),
            what="the fork tree drawn",
        )
        assert painted_control_codes(app) == []
        assert app.is_running


def _shows(app: ShellHarness, text: str) -> Callable[[], bool]:
    return lambda: text in screen_text(app)


async def test_the_hostile_graph_s_thread_is_painted_inertly_in_every_tab(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """Node names, a state (strings, lists of dicts and their keys, a tool's name,
    arguments and result) and an assistant's name holding escapes, controls and markup
    shapes: each tab paints them as typed and nothing a terminal acts on."""
    assistant = await hostile_assistant(client)
    thread = await client.threads.create(metadata={"graph_id": HOSTILE_GRAPH})
    for text in ("first", EVERYTHING):
        message = {"role": "user", "content": text}
        async with client.runs.stream(
            thread.thread_id, assistant.assistant_id, input={"messages": [message]}
        ) as run:
            async for _ in run:
                pass
    node = f"node-{MARKER}"
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=(240, 60)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.click("#history")  # the history has the keys
        drawn_inertly(app, node)  # the history table's Wrote and Next
        tabs = {
            "s": (f"→ tool-{MARKER}", WRAPPED_HEAD, WRAPPED_TAIL),  # State
            "d": ("written to make a:", WRAPPED_HEAD, WRAPPED_TAIL, "\\u001b]0;pwned"),  # Diff
            "t": (f"→ {node}", NODE_SHAPES),  # Fork tree
            "T": ("slowest: step", node),  # Timeline
            "v": ("Graph", node),  # the graph pane
        }
        for key, literal in tabs.items():
            await pilot.press(key)
            await workers_done(app)
            await pilot.pause()
            await wait_for(pilot, _shows(app, literal[0]), what=f"{key}'s tab")
            drawn_inertly(app, *literal)
        await pilot.press("R")  # the thread's runs, by the assistant's name
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
        await wait_for(pilot, lambda: "2 runs" in screen_text(app), what="the runs")
        drawn_inertly(app, f"{assistant.name[:6]} {MARKER}")
        assert app.is_running


async def test_a_carriage_return_in_a_state_key_is_shown_escaped_on_its_line(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    # The cleaning turns \r into a line break; a tree label is one line, so the rest of
    # the key and its value used to vanish. Invisible marks are dropped like elsewhere.
    steps = [superstep({"steps": 1}, "__input__"), superstep({"steps": 1}, "__start__")]
    steps.append(superstep({"i": 1, "seen": [{"shown\rhidden\u200b": "the value"}]}, "tick"))
    thread = await client.threads.create(metadata={"graph_id": "loop"}, supersteps=steps)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await wait_for(pilot, lambda: "shown" in screen_text(app), what="the values tree")
        assert 'shown\\rhidden: "the value"' in screen_text(app)
        assert painted_control_codes(app) == []


async def test_status_refreshes_and_a_run_elsewhere_comes_in(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id, status_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        header = screen.query_one("#thread-header")
        assert "idle" in str(header.render()) and "4 checkpoints" in str(header.render())
        # A run started by someone else: the timer notices, the new head comes in on top.
        async with client.runs.stream(thread.thread_id, "counter", input={"n": 1}) as run:
            async for _ in run:
                pass
        await wait_for(pilot, lambda: len(screen.history.rows) == 8, what="the new checkpoints")
        await wait_for(pilot, lambda: "8 checkpoints" in str(header.render()))
        # The thread is read just before its history: one read as the run ends can still
        # say busy; the next check (0.2 s) says idle.
        await wait_for(pilot, lambda: "idle" in str(header.render()), what="idle again")
        assert screen.history.rows[0].state.values["n"] == 2 * (1 + 1)


async def test_help_lists_the_thread_view_keys(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    from agent_tui.tui.screens.help import HelpScreen

    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        local = {description: key for key, description in app.screen.local_keys}
        assert [local[name] for name in ("Fork", "Run from here", "Mark", "Diff")] == [
            "f",
            "p",
            "m",
            "d",
        ]
        assert [local[name] for name in ("Fork tree", "Export", "Raw JSON", "Copy id")] == [
            "t",
            "x",
            "y",
            "c",
        ]
        await pilot.press("escape")
        assert screen.is_current
        names = [command.name for command in screen.palette_commands()]
        assert "Fork from this checkpoint…" in names and "Fork tree" in names
