"""Streamed runs of the demo chat graph through our client: tokens, tools, interrupts, errors."""

from __future__ import annotations

from typing import Any

from agent_tui.client import AgentServerClient, RunStream
from agent_tui.client.events import (
    ErrorEvent,
    MessagesEvent,
    MetadataEvent,
    RunEvent,
    UpdatesEvent,
)

FAST = {"token_delay_ms": 0}


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def collect(stream: RunStream) -> list[RunEvent]:
    async with stream:
        return [event async for event in stream]


def ai_tokens(events: list[RunEvent], node: str = "agent") -> str:
    return "".join(e.text for e in events if isinstance(e, MessagesEvent) and e.node == node)


async def test_tokens_stream_in_order_and_join_to_the_final_answer(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    events = await collect(
        client.runs.stream(thread.thread_id, "chat", input=ask("count to 30"), context=FAST)
    )
    assert isinstance(events[0], MetadataEvent) and events[0].run_id
    tokens = [e for e in events if isinstance(e, MessagesEvent)]
    assert len(tokens) >= 30  # token by token, not one blob
    expected = " ".join(str(i) for i in range(1, 31))
    assert ai_tokens(events) == expected
    node_updates = [e for e in events if isinstance(e, UpdatesEvent)]
    assert [list(e.updates) for e in node_updates] == [["agent"]]
    # The last token arrives before the node's update that holds the whole message.
    assert events.index(tokens[-1]) < events.index(node_updates[0])
    state = await client.threads.get_state(thread.thread_id)
    assert state.values["messages"][-1]["content"] == expected


async def test_context_changes_the_answer(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    context = {**FAST, "style": "pirate", "shout": True}
    events = await collect(
        client.runs.stream(thread.thread_id, "chat", input=ask("hello"), context=context)
    )
    assert ai_tokens(events) == "ARR! YOU SAID: HELLO"


async def test_tool_call_and_its_result_appear_as_updates(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    events = await collect(
        client.runs.stream(thread.thread_id, "chat", input=ask("calc 2+2"), context=FAST)
    )
    updates = [e.updates for e in events if isinstance(e, UpdatesEvent)]
    assert [next(iter(u)) for u in updates] == ["agent", "tools", "agent"]
    call = updates[0]["agent"]["messages"][0]["tool_calls"][0]
    assert (call["name"], call["args"]) == ("calculator", {"expression": "2+2"})
    result = updates[1]["tools"]["messages"][0]
    assert (result["type"], result["content"], result["tool_call_id"]) == (
        "tool",
        "2+2 = 4",
        call["id"],
    )
    assert updates[2]["agent"]["messages"][0]["content"] == "2+2 = 4"


async def test_interrupt_then_resume_continues_the_run(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    first = await collect(
        client.runs.stream(thread.thread_id, "chat", input=ask("deploy to staging"), context=FAST)
    )
    interrupts = [i for e in first if isinstance(e, UpdatesEvent) for i in e.interrupts]
    assert [i["value"]["question"] for i in interrupts] == ["Deploy to staging? (yes/no)"]
    assert (await client.threads.get(thread.thread_id)).status == "interrupted"
    assert (await client.threads.get_state(thread.thread_id)).next == ["approve"]

    resumed = await collect(
        client.runs.stream(thread.thread_id, "chat", command={"resume": "yes"}, context=FAST)
    )
    assert ai_tokens(resumed) == "Deployed to staging."
    assert (await client.threads.get(thread.thread_id)).status == "idle"


async def test_a_failing_run_sends_an_error_event_and_marks_the_thread(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    events = await collect(
        client.runs.stream(thread.thread_id, "chat", input=ask("please fail"), context=FAST)
    )
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [(e.error, e.message) for e in errors] == [("DemoFailure", "You asked me to fail.")]
    assert (await client.threads.get(thread.thread_id)).status == "error"
