"""A thread stopped inside a subgraph: the state tab says where and with what values
(`get_state(..., subgraphs=true)`), nested with the subgraph's namespace."""

from __future__ import annotations

import httpx
from textual.app import App, ComposeResult
from textual.widgets import Collapsible, Static

from agent_tui.client import AgentServerClient
from agent_tui.threads.subgraph_state import (
    frames_as_json,
    paused_at,
    says_less_than,
    subgraph_frames,
)
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
        [before] = await client.threads.get_history(thread_id, limit=1, before=flat.checkpoint_id)
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

        view.show(flat)  # the same checkpoint read without them: it says nothing new
        await pilot.pause()
        assert view.query_one("#checkpoint-subgraphs", Collapsible).display
        view.show(before)  # a checkpoint without subgraphs begun: no such section
        await pilot.pause()
        assert not view.query_one("#checkpoint-subgraphs", Collapsible).display
        assert "Inside" not in str(view.query_one("#checkpoint-summary", Static).render())


async def test_the_checkpoint_read_without_its_subgraphs_says_less_unless_more_is_pending(
    agent_server_url: str,
) -> None:
    thread_id = await nested_thread_waiting_for_approval(agent_server_url)
    async with AgentServerClient(agent_server_url) as client:
        [listed] = await client.threads.get_history(thread_id, limit=1)
        state = await client.threads.get_state(thread_id, listed.checkpoint_id, subgraphs=True)
        older = await client.threads.get_history(thread_id, limit=1, before=listed.checkpoint_id)
    # The history's copy adds nothing to the state read with the subgraphs: not drawn
    # over it (the State tab would lose "Inside chat > approve" until a new read).
    assert says_less_than(listed, state)
    assert not says_less_than(state, listed)  # the other way round it says more
    assert not says_less_than(older[0], state)  # another checkpoint
    # A new interrupt pending on the same checkpoint: it says more, and is drawn.
    raw = listed.raw()
    raw["tasks"][0]["interrupts"].append({"id": "x", "value": "and now this?"})
    assert not says_less_than(type(listed).model_validate(raw), state)
