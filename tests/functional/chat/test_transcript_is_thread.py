"""The transcript is the thread: after each operation the chat shows the messages of the
checkpoint the thread is on, in order, each once (issue 20, part 3)."""

from __future__ import annotations

from typing import Any

from agent_tui.chat.items import NoticeItem
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from tests.support.chat import item_messages, state_messages

FAST = {"token_delay_ms": 0}


async def send(session: ChatSession, assistant: str, text: str, **options: Any) -> None:
    async for _ in session.send(RunRequest(assistant, **options), text):
        pass


async def test_a_store_writing_tool_result_shows_once(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "memory"})
    session = ChatSession(client, thread.thread_id)
    await send(session, "memory", "Remember that I like pizza")
    shown = item_messages(session.transcript.items)
    assert shown == await state_messages(client, thread.thread_id)
    assert [kind for kind, _ in shown] == ["human", "ai", "tool", "ai"]
    assert shown[-1] == ("ai", "Noted: I like pizza.")


async def test_after_a_fork_and_a_replay_the_next_run_shows_the_branch(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    session = ChatSession(client, thread.thread_id)
    await send(session, "chat", "weather in Paris", context=FAST)
    history = await client.threads.get_history(thread.thread_id, limit=100)
    # After the tool ran (next: `agent`): edit the tool's result, as the tools node.
    after_tool = next(s for s in history if len(s.values.get("messages", [])) == 3)
    result = after_tool.values["messages"][2]
    fork = await client.threads.update_state(
        thread.thread_id,
        {"messages": [{**result, "content": "It is snowing in Paris."}]},
        as_node="tools",
        checkpoint_id=after_tool.checkpoint_id,
    )
    async with client.runs.stream(
        thread.thread_id,
        "chat",
        input=None,
        checkpoint_id=fork.checkpoint.checkpoint_id,
        context=FAST,
        stream_mode=("updates",),
    ) as run:
        async for _ in run:
            pass
    await send(session, "chat", "hello again", context=FAST)
    shown = item_messages(session.transcript.items)
    assert shown == await state_messages(client, thread.thread_id)
    assert shown[2:4] == [("tool", "It is snowing in Paris."), ("ai", "It is snowing in Paris.")]
    assert any(isinstance(item, NoticeItem) for item in session.transcript.items)


async def test_after_an_interrupt_and_its_answer_the_transcript_is_the_state(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    session = ChatSession(client, thread.thread_id)
    await send(session, "chat", "deploy to staging", context=FAST)
    assert item_messages(session.transcript.items) == await state_messages(client, thread.thread_id)
    [question] = session.transcript.waiting_interrupts()
    async for _ in session.resume(RunRequest("chat", context=FAST), "yes", question):
        pass
    shown = item_messages(session.transcript.items)
    assert shown == await state_messages(client, thread.thread_id)
    assert shown[-2:] == [("tool", "Deployed to staging."), ("ai", "Deployed to staging.")]


async def test_a_rollback_shows_only_the_run_that_replaced_the_rolled_back_one(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    session = ChatSession(client, thread.thread_id)
    await send(session, "chat", "hello", context=FAST)
    slow = {"token_delay_ms": 50}
    steps = session.send(RunRequest("chat", context=slow), "count to 100")
    async for _, _changes in steps:
        if any(text.startswith("1 2 3") for text in session.transcript.ai_texts()):
            break
    await steps.aclose()
    run = await session.hand_over(RunRequest("chat", context=FAST), "hello again", "rollback")
    async for _ in session.join(run.run_id, reload=True):
        pass
    shown = item_messages(session.transcript.items)
    assert shown == await state_messages(client, thread.thread_id)
    assert [text for kind, text in shown if kind == "human"] == ["hello", "hello again"]


async def test_after_an_edit_at_a_breakpoint_and_continuing_the_transcript_is_the_state(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    session = ChatSession(client, thread.thread_id)
    await send(session, "chat", "weather in Paris", context=FAST, interrupt_before=["tools"])
    paused = await client.threads.get_state(thread.thread_id)
    assert paused.next == ["tools"]
    human = paused.values["messages"][0]
    await client.threads.update_state(
        thread.thread_id, {"messages": [{**human, "content": "weather in Paris, please"}]}
    )
    async for _ in session.run(RunRequest("chat", context=FAST)):
        pass
    shown = item_messages(session.transcript.items)
    assert shown == await state_messages(client, thread.thread_id)
    assert shown[0] == ("human", "weather in Paris, please")
