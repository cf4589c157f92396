"""What the thread view says of subgraphs is so, on a swarm-like graph two levels deep
(`deep_nested`: agents that are subgraphs, a handoff out of one, a subgraph in another)."""

from __future__ import annotations

import re
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.thread_view.graph_pane import GraphPane
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.chat import chat_app, chat_thread, ended, pane_of, type_and_send
from tests.support.graph import top_border
from tests.support.screen import screen_text
from tests.support.thread_view import SIZE, deep_nested_thread, loaded, view_app
from tests.support.waiting import WaitFor, workers_done


async def show_step(
    pilot: Pilot[Any], screen: ThreadViewScreen, wait_for: WaitFor, next_node: str
) -> None:
    """Put the cursor on the checkpoint that runs `next_node`; let its states load (the
    one read with `subgraphs=true` too)."""
    await wait_for(pilot, lambda: loaded(screen), what="the thread")
    row = next(r for r in screen.history.rows if r.next == (next_node,))
    screen.pane.move_cursor(row=screen.pane.get_row_index(row.checkpoint_id))
    await wait_for(
        pilot,
        lambda: screen.checkpoint_view.checkpoint_id == row.checkpoint_id,
        what=f"the checkpoint before {next_node}",
    )
    await workers_done(pilot.app)
    await pilot.pause()


def summary_lines(pilot: Pilot[Any]) -> list[str]:
    return [line.strip() for line in screen_text(pilot.app).splitlines()]


async def test_a_checkpoint_paused_before_a_subgraph_is_not_inside_it(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await deep_nested_thread(agent_server_url, interrupt_before=["hotel_assistant"])
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await show_step(pilot, screen, wait_for, "hotel_assistant")
        painted = screen_text(app)
        assert "hotel_assistant" in painted  # Next says what runs next...
        assert "Inside" not in painted  # ...but nothing of it has run yet


async def test_an_older_checkpoint_is_not_inside_a_subgraph_that_ran_after_it(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await deep_nested_thread(agent_server_url)  # runs to its end
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        # Step 0 runs flight_assistant, which handed over from its `tools` node: its own
        # newest checkpoint still has `tools` next, though it is long done.
        await show_step(pilot, screen, wait_for, "flight_assistant")
        subgraphs = screen.checkpoint_view.query_one("#checkpoint-subgraphs-json", JsonView)
        # The state read with `subgraphs=true` lands after the step is shown (on a loaded
        # machine, after the workers are done): what it says is read once it is there.
        await wait_for(
            pilot, lambda: '"finished": true' in subgraphs.text, what="the subgraphs' state"
        )
        assert "Inside" not in screen_text(app)


async def test_a_thread_asking_two_subgraphs_deep_says_where(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await deep_nested_thread(agent_server_url, "confirm the booking")
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await show_step(pilot, screen, wait_for, "hotel_assistant")
        where = "Inside     hotel_assistant > final_report_generation > review"
        # Painted once the state read with `subgraphs=true` is shown (a loaded machine
        # may paint it a frame after the workers are done).
        await wait_for(pilot, lambda: where in screen_text(app), what="where the thread asks")


def history_lines(pilot: Pilot[Any]) -> dict[str, str]:
    """The history rows as painted (the pane's part of each line), by step."""
    rows: dict[str, str] = {}
    for line in screen_text(pilot.app).splitlines():
        pane = line.split("│", 1)[0].split()
        if len(pane) > 2 and pane[1] in ("loop", "input"):
            rows[pane[0]] = line.split("│", 1)[0]
    return rows


async def test_the_history_cuts_long_node_names_with_a_mark_and_widens_with_the_terminal(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await deep_nested_thread(agent_server_url)

    async def painted(width: int) -> dict[str, str]:
        app, _ = view_app(client, thread_id)
        async with app.run_test(size=(width, 30)) as pilot:
            await wait_for(pilot, lambda: len(history_lines(pilot)) == 5, what="every row")
            return history_lines(pilot)

    narrow, wide = await painted(160), await painted(230)
    # 160 columns: names too long for their column end in `…`; `⤷` (the node that ran
    # a subgraph) stays in view.
    assert "research_supervis…" in narrow["3"]
    assert "⤷hotel_assi…" in narrow["1"] and "⤷flight_ass…" in narrow["0"]
    # 230 columns: the node columns are wider, and these names whole.
    assert "research_supervisor_summary " in wide["3"]
    assert "⤷hotel_assistant " in wide["1"] and "⤷flight_assistant " in wide["0"]
    assert "research_superviso…" in wide["2"]  # Next still too narrow for it: cut, marked


async def test_the_graph_pane_numbers_and_times_its_boxes_as_its_count_and_the_timeline(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("deep_nested")
    thread = await chat_thread(client, assistant)
    app, screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=(230, 60)) as pilot:
        pane = pane_of(app)
        screen.chat.transcript.focus()
        await pilot.press("v")
        view = screen.query_one(GraphPane).view
        await wait_for(pilot, lambda: bool(view.drawn.boxes), what="the graph", workers=False)
        await type_and_send(pilot, pane, "plain")
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        await wait_for(
            pilot,
            lambda: top_border(view.plain, "research_supervisor_summary").startswith("┌✓"),
            what="the last node numbered",
        )

        def status() -> str:
            return str(screen.query_one("#graph-status", Static).render())

        # Each subgraph one box: the three top-level nodes, numbered as the count says.
        assert [top_border(view.plain, n)[1:3] for n in TOP] == ["✓1", "✓2", "✓3"]
        assert status().endswith("✓ 3 ran")
        # Their times are the Timeline's.
        screen.query_one("#history").focus()
        await pilot.press("T")
        await wait_for(pilot, lambda: "slowest" in screen_text(app), what="the timeline")
        took = {}
        for line in screen_text(app).splitlines():
            words = line.rpartition("│")[2].split()
            for node in TOP:  # a long name is cut (`research_supervisor_sum…`)
                if len(words) > 3 and node.startswith(words[1].removesuffix("…")):
                    took[node] = " ".join(words[2:4])
        for node in TOP:
            assert top_border(view.plain, node).startswith(f"┌✓{TOP.index(node) + 1} {took[node]}─")
        # Every subgraph open: each box its own number, the highest the count.
        view.focus()
        await pilot.press("x")
        numbers = sorted(int(n) for n in re.findall(r"✓(\d+)", view.plain))
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > 3
        assert status().endswith(f"✓ {len(numbers)} ran")


TOP = ["flight_assistant", "hotel_assistant", "research_supervisor_summary"]
