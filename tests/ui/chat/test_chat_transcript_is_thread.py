"""A tool result shows once in the live chat of a memory-agent-shaped graph (its tool
node returns messages with no id; the server names them in the state) (issue 20, part 3)."""

from __future__ import annotations

from agent_tui.client import AgentServerClient
from tests.support.chat import (
    SIZE,
    chat_app,
    ended,
    notices,
    pane_of,
    state_messages,
    transcript_messages,
    type_and_send,
)
from tests.support.waiting import WaitFor


async def test_a_store_writing_tool_result_shows_once(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("memory", name="memory agent")
    thread = await client.threads.create(
        metadata={"graph_id": "memory", "assistant_id": assistant.assistant_id}
    )
    app, _screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, "Remember that I like pizza")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        shown = transcript_messages(pane)
        assert shown == await state_messages(client, thread.thread_id)
        assert [text for kind, text in shown if kind == "tool"] == ["Stored memory memory-2-0"]
        assert shown[-1] == ("ai", "Noted: I like pizza.")
        assert notices(pane) == []  # nothing to redraw: the live transcript was right
