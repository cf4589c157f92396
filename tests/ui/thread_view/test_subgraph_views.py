"""What the thread view says of subgraphs is so, on a swarm-like graph two levels deep
(`deep_nested`: agents that are subgraphs, a handoff out of one, a subgraph in another)."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.screen import screen_text
from tests.support.thread_view import SIZE, deep_nested_thread, loaded, view_app
from tests.support.waiting import WaitFor


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
    await pilot.app.workers.wait_for_complete()
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
        assert "Inside" not in screen_text(app)
        subgraphs = screen.checkpoint_view.query_one("#checkpoint-subgraphs-json", JsonView)
        assert '"finished": true' in subgraphs.text


async def test_a_thread_asking_two_subgraphs_deep_says_where(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await deep_nested_thread(agent_server_url, "confirm the booking")
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await show_step(pilot, screen, wait_for, "hotel_assistant")
        where = "Inside     hotel_assistant > final_report_generation > review"
        assert where in screen_text(app)


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
