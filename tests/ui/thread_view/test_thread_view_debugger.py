"""The thread view as a debugger: where a thread stopped inside a subgraph (State tab)
and how long each superstep took (Timeline tab, `T`), against the real agent server."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import pytest
from textual.widgets import Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.screens.thread_view.timeline_view import TimelineBody, TimelineView
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.thread_view import SIZE, counter_thread, loaded, view_app
from tests.support.waiting import WaitFor


async def test_the_state_tab_says_where_inside_a_subgraph_the_thread_waits(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id = (await http.post("/threads", json={})).json()["thread_id"]
        body = {
            "assistant_id": "nested",
            "input": {"messages": [{"role": "user", "content": "deploy to staging"}]},
            "context": {"token_delay_ms": 0},
        }
        assert (await http.post(f"/threads/{thread_id}/runs/wait", json=body)).status_code == 200
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")

        def summary() -> str:
            return str(screen.checkpoint_view.query_one("#checkpoint-summary", Static).render())

        await wait_for(pilot, lambda: "Inside" in summary(), what="the subgraph's state")
        assert "Inside     chat > approve" in summary()
        # The history's copy of the checkpoint (read without its subgraphs), shown again
        # as a reload does: it says nothing new, and took "Inside" away until the
        # subgraphs were read again (under load, a test read the screen in between).
        row = screen.browser.selected_row
        assert row is not None
        screen.browser.show_row(row)
        assert "Inside     chat > approve" in summary()

        # The Subgraphs section, built and filled a moment later: the lower sections are
        # built when there is something to show in them, and the subgraphs' states come
        # with the checkpoint read again with them (under load, after the section was built
        # from the history's copy, which has none).
        def subgraphs() -> str:
            if not screen.checkpoint_view.details_built:
                return ""
            return screen.checkpoint_view.query_one("#checkpoint-subgraphs-json", JsonView).text

        await wait_for(pilot, lambda: "chat (chat:" in subgraphs(), what="the subgraphs section")


async def test_the_timeline_tab_shows_each_superstep_and_the_slowest(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        screen.tabs.active = "tab-timeline"
        timeline = screen.query_one(TimelineView)
        await wait_for(pilot, lambda: len(timeline.steps) == 4, what="four supersteps")
        assert [step.label for step in timeline.steps] == ["__input__", "__start__", "inc", "dbl"]
        text = str(timeline.query_one(TimelineBody).render())
        assert "slowest: step" in text
        lines = text.splitlines()
        assert any(line.strip().startswith("1 inc") for line in lines), lines


async def test_t_shows_the_timeline_and_a_pause_at_a_breakpoint_is_no_nodes_time(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id = (await http.post("/threads", json={})).json()["thread_id"]
        paused = {"assistant_id": "counter", "input": {"n": 5}, "interrupt_before": ["dbl"]}
        assert (await http.post(f"/threads/{thread_id}/runs/wait", json=paused)).is_success
        # Continued 1.5 s later: a run the server itself starts after that long, so the
        # pause is on the server's clock (as a user looking at the paused state).
        resume = {"assistant_id": "counter", "input": None, "after_seconds": 1.5}
        run = (await http.post(f"/threads/{thread_id}/runs", json=resume)).json()
        assert (await http.get(f"/threads/{thread_id}/runs/{run['run_id']}/join")).is_success
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        await pilot.press("T")
        assert screen.tabs.active == "tab-timeline"
        # The tab is built as it is shown: its body is there once the tab is mounted.
        await wait_for(pilot, lambda: screen.tabs.is_ready("tab-timeline"), what="the timeline")
        body = screen.query_one(TimelineBody)

        def line_of(prefix: str) -> str:
            lines = str(body.render()).splitlines()
            return next((line for line in lines if line.strip().startswith(prefix)), "")

        # `dbl` ran in the second run: timed from that run's start, not from the pause.
        await wait_for(pilot, lambda: " ms " in line_of("2 dbl"), what="dbl timed in ms")
        # 1.5 s, and the time the server's queue took to find the delayed run (it looks
        # every 0.5 s; later on a loaded machine).
        pause = re.fullmatch(r"\s*⋯ (\d\.\d\d) s with nothing running", line_of("⋯"))
        assert pause and 1.5 <= float(pause[1]) < 3.0, line_of("⋯")
        slowest = line_of("slowest:")
        assert slowest.endswith(" running)") and " s of " not in slowest, slowest
        assert line_of("not counted:").startswith(f"not counted: {pause[1]}"), line_of("not")

        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert ("T", "Timeline") in app.screen.local_keys


async def nested_thread(agent_server_url: str) -> str:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id: str = (await http.post("/threads", json={})).json()["thread_id"]
        body = {
            "assistant_id": "nested",
            "input": {"messages": [{"role": "user", "content": "weather in Paris"}]},
            "context": {"token_delay_ms": 0},
        }
        assert (await http.post(f"/threads/{thread_id}/runs/wait", json=body)).status_code == 200
    return thread_id


async def test_the_subgraph_checkpoints_stay_when_the_state_with_subgraphs_comes_last(
    client: AgentServerClient,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A checkpoint whose task ran a subgraph is read twice apart: its subgraphs' history
    and its state with subgraphs. The state coming last redrew the view and hid the
    history (a test timed out on a loaded machine)."""
    thread_id = await nested_thread(agent_server_url)
    release = asyncio.Event()
    get_state = client.threads.get_state

    async def state_held(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("subgraphs"):
            await release.wait()
        return await get_state(*args, **kwargs)

    monkeypatch.setattr(client.threads, "get_state", state_held)
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        row = next(r for r in screen.history.rows if r.next == ("chat",))
        screen.pane.move_cursor(row=screen.pane.get_row_index(row.checkpoint_id))
        view = screen.checkpoint_view
        await wait_for(
            pilot, lambda: bool(view.subgraph_history_text), workers=False, what="its checkpoints"
        )
        release.set()  # now the state with its subgraphs
        await wait_for(
            pilot,
            lambda: view.query_one("#checkpoint-subgraphs").display,
            what="the subgraphs drawn",
        )
        await pilot.pause()
        assert view.subgraph_history_text.startswith("chat  namespace ")


async def test_the_history_marks_a_subgraph_and_the_state_tab_lists_its_checkpoints(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await nested_thread(agent_server_url)
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the thread")
        # The superstep whose `chat` node ran the subgraph: `⤷` beside it in Next.
        row = next(r for r in screen.history.rows if r.next == ("chat",))
        namespace = row.subgraph_namespaces["chat"]
        assert namespace.startswith("chat:")
        table = screen.pane
        cells = [cell.plain for cell in table.get_row(row.checkpoint_id)]
        assert "⤷chat" in cells
        table.move_cursor(row=table.get_row_index(row.checkpoint_id))
        view = screen.checkpoint_view
        await wait_for(pilot, lambda: bool(view.subgraph_history_text), what="its checkpoints")
        lines = view.subgraph_history_text.splitlines()
        assert lines[0].startswith(f"chat  namespace {namespace}  ")
        # The subgraph's own supersteps, newest first: its input, then agent, tools, agent.
        steps = [line.split()[1] for line in lines[1:]]
        assert steps == [str(n) for n in range(len(steps) - 2, -2, -1)] and len(steps) >= 3
        assert lines[-1].split()[2] == "input"
        # The top graph's own history does not list them.
        assert all(not r.state.checkpoint.checkpoint_ns for r in screen.history.rows)
