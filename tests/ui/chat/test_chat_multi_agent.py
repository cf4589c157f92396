"""Multi-agent graphs in the chat (issue 30; real server): a real langgraph-swarm swarm, a
real langgraph-supervisor supervisor and a hand-built graph with two levels of subgraphs.
A straight run shows each message and tool result once, live and after the thread is
opened again, with no "another branch" notice; a handoff reads as `→ agent`; and a fork
made elsewhere still gets the notice."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from agent_tui.chat.transcript_sync import why_redrawn
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.tui.chat.blocks import ToolResultBlock
from agent_tui.tui.chat.handoff_block import HandoffBlock
from agent_tui.tui.chat.pane import ChatPane
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

ASK = "hotel in paris"
ANOTHER_BRANCH = why_redrawn([], rejoined=False)

# What the chat shows live, (type, text) in order; a subgraph's own messages (the
# supervisor's researcher works apart: only its answer goes back) show only live.
LIVE = {
    "swarm": [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Successfully transferred to hotel_assistant"),
        ("ai", ""),
        ("tool", "Booked a room in Paris."),
        ("ai", "Your room in Paris is booked."),
    ],
    "supervisor": [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Successfully transferred to researcher"),
        ("ai", ""),
        ("tool", "Found 3 results for hotel in paris."),
        ("ai", "The research is done: found 3 results."),
        ("ai", "Transferring back to supervisor"),
        ("tool", "Successfully transferred back to supervisor"),
        ("ai", "Here is what the researcher found."),
    ],
    "deep": [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Successfully transferred to team"),
        ("ai", ""),
        ("tool", "hotel in paris is well known."),
        ("ai", "Looked it up: hotel in paris is well known."),
    ],
    # The brief streams (the model said it) though it is kept out of `messages`; the
    # human message written for the researchers is nobody's message in this chat.
    "brief": [("human", ASK), ("ai", f"Brief: {ASK}"), ("ai", f"Report on {ASK}.")],
}
# What the thread keeps, and so what the chat shows when the thread is opened again.
SAVED = {
    **LIVE,
    "supervisor": [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Successfully transferred to researcher"),
        ("ai", "The research is done: found 3 results."),
        ("ai", "Transferring back to supervisor"),
        ("tool", "Successfully transferred back to supervisor"),
        ("ai", "Here is what the researcher found."),
    ],
    "brief": [("human", ASK), ("ai", f"Report on {ASK}.")],
}
HANDOFFS = {
    "swarm": ["→ hotel_assistant"],
    "supervisor": ["→ researcher", "→ supervisor"],
    "deep": ["→ team"],
    "brief": [],
}
TOOLS = {
    "swarm": ["tool · book_hotel · ⤷ hotel_assistant success"],
    "supervisor": ["tool · search · ⤷ researcher success"],
    "deep": ["tool · lookup · ⤷ team:worker success"],
    "brief": [],
}


def block_texts(pane: ChatPane, kind: type[HandoffBlock | ToolResultBlock]) -> list[str]:
    """The first line each block of `kind` paints (its label), in order."""
    return [str(block.query(Static).first().render()) for block in pane.query(kind)]


def shows_blocks(pane: ChatPane) -> bool:
    """Every tool block is composed (a block mounted but not composed yet paints nothing)."""
    blocks = [*pane.query(HandoffBlock), *pane.query(ToolResultBlock)]
    return all(block.query(Static) for block in blocks)


async def multi_agent_assistant(client: AgentServerClient, graph: str) -> Assistant:
    return await client.assistants.create(graph, name=f"{graph} agents", if_exists="do_nothing")


@pytest.mark.parametrize("graph", list(LIVE))
async def test_a_straight_run_shows_each_message_once_and_handoffs_as_arrows(
    graph: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await multi_agent_assistant(client, graph)
    thread = await client.threads.create(metadata={"graph_id": graph})
    app, _screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, ASK)
        await wait_for(pilot, lambda: ended(pane) and shows_blocks(pane), what="the run")
        assert transcript_messages(pane) == LIVE[graph]
        assert notices(pane) == []  # the live transcript was right: nothing redrawn
        assert block_texts(pane, HandoffBlock) == HANDOFFS[graph]
        assert block_texts(pane, ToolResultBlock) == TOOLS[graph]

    assert await state_messages(client, thread.thread_id) == SAVED[graph]
    app, _screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded and shows_blocks(pane), what="reopened")
        assert transcript_messages(pane) == SAVED[graph]
        assert block_texts(pane, HandoffBlock) == HANDOFFS[graph]
        assert notices(pane) == []


async def test_a_fork_made_elsewhere_still_gets_the_branch_notice(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await multi_agent_assistant(client, "swarm")
    thread = await client.threads.create(metadata={"graph_id": "swarm"})
    app, _screen = chat_app(client, thread.thread_id, assistant)  # no polling
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, ASK)
        await wait_for(pilot, lambda: ended(pane), what="the first run")
        first = await client.threads.get_history(thread.thread_id, limit=1)
        await type_and_send(pilot, pane, "hotel in rome")
        await wait_for(pilot, lambda: ended(pane), what="the second run")
        assert ("ai", "Your room in Rome is booked.") in transcript_messages(pane)
        assert notices(pane) == []

        # Another client forks the thread back to after the first run; the chat, which
        # does not poll, learns it from its next run's state.
        await client.threads.update_state(
            thread.thread_id,
            {"messages": [{"role": "user", "content": "a fork made elsewhere"}]},
            checkpoint_id=first[0].checkpoint_id,
        )
        await type_and_send(pilot, pane, "hotel in oslo")
        await wait_for(pilot, lambda: ended(pane), what="the run on the fork")
        shown = transcript_messages(pane)
        assert shown == await state_messages(client, thread.thread_id)
        assert ("ai", "Your room in Rome is booked.") not in shown
        assert shown[-1] == ("ai", "Your room in Oslo is booked.")
        assert notices(pane) == [ANOTHER_BRANCH]
