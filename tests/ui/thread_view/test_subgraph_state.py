"""A thread stopped inside a subgraph: the state tab says where and with what values
(`get_state(..., subgraphs=true)`), nested with the subgraph's namespace."""

from __future__ import annotations

import httpx
from textual.app import App, ComposeResult
from textual.widgets import Collapsible, Static

from agent_tui.client import AgentServerClient
from agent_tui.threads.subgraph_state import frames_as_json, paused_at, subgraph_frames
from agent_tui.tui.screens.thread_view.checkpoint_view import CheckpointView
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.waiting import WaitFor


async def nested_thread_waiting_for_approval(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        thread_id: str = (await http.post("/threads", json={})).json()["thread_id"]
        body = {
            "assistant_id": "nested",
            "input": {"messages": [{"role": "user", "content": "deploy to staging"}]},
            "context": {"token_delay_ms": 0},
        }
        assert (await http.post(f"/threads/{thread_id}/runs/wait", json=body)).status_code == 200
    return thread_id


class StateApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CheckpointView(id="view")


async def test_the_state_tab_shows_where_inside_the_subgraph_the_thread_waits(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await nested_thread_waiting_for_approval(agent_server_url)
    client = AgentServerClient(agent_server_url)
    try:
        flat = await client.threads.get_state(thread_id)
        state = await client.threads.get_state(thread_id, subgraphs=True)
    finally:
        await client.aclose()
    # The top level alone says only that the `chat` subgraph is pending.
    assert flat.next == ["chat"] and subgraph_frames(flat) == []
    [frame] = subgraph_frames(state)
    assert frame.path == ("chat",) and frame.namespace.startswith("chat:")
    assert frame.state.next == ["approve"]
    assert paused_at(state) == "chat > approve"
    nested = frames_as_json([frame])
    [key] = nested
    assert key.startswith("chat (chat:")
    assert nested[key]["interrupts"][0]["question"] == "Deploy to staging? (yes/no)"

    app = StateApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(CheckpointView)
        view.show(state)
        await pilot.pause()
        summary = str(view.query_one("#checkpoint-summary", Static).render())
        assert "Inside     chat > approve" in summary
        section = view.query_one("#checkpoint-subgraphs", Collapsible)
        assert section.display and section.title == "Subgraphs (1)"
        shown = view.query_one("#checkpoint-subgraphs-json", JsonView)
        text = shown.text
        assert "chat (chat:" in text and "Deploy to staging?" in text

        view.show(flat)  # a state read without subgraphs: no such section
        await pilot.pause()
        assert not view.query_one("#checkpoint-subgraphs", Collapsible).display
