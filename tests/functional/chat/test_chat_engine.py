"""The chat engine (RunDriver + ChatTranscript) against the real agent server and demo graph."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_tui.chat.driver_events import (
    DriverEvent,
    Finished,
    Received,
    Reconnected,
    Reconnecting,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.chat.items import (
    AIItem,
    Appended,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    TranscriptChange,
)
from agent_tui.chat.run_driver import RunDriver
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.client.events import MessagesEvent
from tests.support.drop_proxy import DropProxy

FAST = {"token_delay_ms": 0}
QUICK_BACKOFF = (0.05, 0.1, 0.2)


async def new_thread(client: AgentServerClient) -> str:
    return (await client.threads.create(metadata={"graph_id": "chat"})).thread_id


async def send(
    session: ChatSession, text: str, *, context: dict[str, Any] | None = None
) -> tuple[list[DriverEvent], list[TranscriptChange]]:
    events: list[DriverEvent] = []
    changes: list[TranscriptChange] = []
    async for event, step_changes in session.send(
        RunRequest("chat", context=context or FAST), text
    ):
        if event is not None:
            events.append(event)
        changes += step_changes
    return events, changes


def finished(events: list[DriverEvent]) -> Finished:
    last = events[-1]
    assert isinstance(last, Finished), last
    assert sum(isinstance(e, Finished) for e in events) == 1
    return last


async def final_messages(client: AgentServerClient, thread_id: str) -> list[dict[str, Any]]:
    state = await client.threads.get_state(thread_id)
    messages: list[dict[str, Any]] = state.values.get("messages", [])
    return messages


async def test_tokens_arrive_in_order_and_the_final_text_is_exact(
    client: AgentServerClient,
) -> None:
    session = ChatSession(client, await new_thread(client))
    events, changes = await send(session, "hello there")
    deltas = [c.delta for c in changes if isinstance(c, Appended)]
    assert len(deltas) >= 3  # token by token, not one blob
    assert "".join(deltas) == "You said: hello there"
    assert finished(events).state == "done"
    assert finished(events).thread_status == "idle"
    items = session.transcript.items
    human, ai = items[0], items[1]
    assert isinstance(human, HumanItem) and human.text == "hello there"
    assert isinstance(ai, AIItem) and ai.text == "You said: hello there" and not ai.streaming
    assert ai.node == "agent"
    assert [i.node for i in items if isinstance(i, NodeUpdateItem)] == ["agent"]
    assert session.machine.state == "done"
    # The human message is shown once, although the server echoes it back.
    assert sum(isinstance(i, HumanItem) for i in items) == 1


async def test_tool_call_with_its_arguments_and_result(client: AgentServerClient) -> None:
    session = ChatSession(client, await new_thread(client))
    events, _ = await send(session, "weather in Paris")
    assert finished(events).state == "done"
    ais = [i for i in session.transcript.items if isinstance(i, AIItem)]
    call = ais[0].tool_calls[0]
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    results = [i for i in session.transcript.items if isinstance(i, ToolResultItem)]
    assert len(results) == 1  # seen as a chunk and in the update: one item
    assert results[0].tool_call_id == call.id and results[0].name == "get_weather"
    assert results[0].content.endswith("in Paris.")
    assert ais[-1].text == results[0].content  # the agent repeats the tool result


async def test_interrupt_then_resume_deploys(client: AgentServerClient) -> None:
    thread_id = await new_thread(client)
    session = ChatSession(client, thread_id)
    events, _ = await send(session, "deploy to staging")
    assert finished(events).state == "interrupted"
    assert finished(events).thread_status == "interrupted"
    interrupts = [i for i in session.transcript.items if isinstance(i, InterruptItem)]
    assert len(interrupts) == 1 and interrupts[0].interrupt_id
    assert interrupts[0].value["question"] == "Deploy to staging? (yes/no)"

    resumed: list[DriverEvent] = []
    async for event, _ in session.resume(RunRequest("chat", context=FAST), "yes", interrupts[0]):
        if event is not None:
            resumed.append(event)
    assert finished(resumed).state == "done"
    assert interrupts[0].answered
    assert session.transcript.ai_texts()[-1] == "Deployed to staging."
    tools = [i for i in session.transcript.items if isinstance(i, ToolResultItem)]
    assert [t.content for t in tools] == ["Deployed to staging."]


async def test_parallel_interrupts_are_answered_one_by_one_by_their_ids(
    client: AgentServerClient,
) -> None:
    thread_id = (await client.threads.create(metadata={"graph_id": "questions"})).thread_id
    session = ChatSession(client, thread_id)

    async def finish(steps: AsyncIterator[Any]) -> Finished:
        events = [event async for event, _ in steps if event is not None]
        return finished(events)

    ended = await finish(session.run(RunRequest("questions", input={})))
    assert ended.state == "interrupted"
    asked = [i for i in session.transcript.items if isinstance(i, InterruptItem)]
    questions = sorted(i.value["question"] for i in asked)
    assert questions == ["Answer for a?", "Answer for b?"]
    first = next(i for i in asked if i.value["question"] == "Answer for a?")
    second = next(i for i in asked if i is not first)

    # Two waiting: a bare value would be refused; this one answers `a` only.
    ended = await finish(session.resume(RunRequest("questions"), "x", first))
    assert ended.state == "interrupted" and first.answered and not second.answered
    assert [i for i in session.transcript.items if isinstance(i, InterruptItem)] == asked
    state = await client.threads.get_state(thread_id)
    assert state.values.get("answers") == ["a=x"]

    ended = await finish(session.resume(RunRequest("questions"), "y", second))
    assert ended.state == "done"
    state = await client.threads.get_state(thread_id)
    assert sorted(state.values["answers"]) == ["a=x", "b=y"]


async def test_a_failing_run_shows_the_error_and_the_thread_is_error(
    client: AgentServerClient,
) -> None:
    session = ChatSession(client, await new_thread(client))
    events, _ = await send(session, "fail now")
    end = finished(events)
    assert (end.state, end.thread_status) == ("error", "error")
    errors = [i for i in session.transcript.items if isinstance(i, ErrorItem)]
    assert [(e.error, e.message) for e in errors] == [("DemoFailure", "You asked me to fail.")]
    assert session.machine.state == "error"


async def test_cancel_mid_run_keeps_the_partial_text(client: AgentServerClient) -> None:
    session = ChatSession(client, await new_thread(client))
    events: list[DriverEvent] = []
    async for event, _ in session.send(
        RunRequest("chat", context={"token_delay_ms": 5}), "count to 2000"
    ):
        if event is not None:
            events.append(event)
        ai = [i for i in session.transcript.items if isinstance(i, AIItem)]
        if ai and len(ai[0].text.split()) >= 20 and not session.driver.cancel_requested:
            assert await session.cancel()
    assert finished(events).state == "cancelled"
    text = session.transcript.ai_texts()[0]
    words = text.split()
    assert 20 <= len(words) < 2000
    assert words == [str(i) for i in range(1, len(words) + 1)]  # in order, nothing lost
    assert session.machine.state == "cancelled"
    assert not session.transcript.items[1].streaming  # type: ignore[union-attr]
    assert (await client.threads.get(session.thread_id)).status == "interrupted"


async def test_a_second_run_on_a_busy_thread_is_refused(client: AgentServerClient) -> None:
    thread_id = await new_thread(client)
    first = RunDriver(client, thread_id)
    events = first.stream(
        RunRequest(
            "chat",
            input={"messages": [{"role": "user", "content": "count to 500"}]},
            context={"token_delay_ms": 5},
        )
    )
    async for event in events:
        if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
            break
    second = RunDriver(client, thread_id)
    with pytest.raises(RunAlreadyActive, match="already active on this thread"):
        async for _ in second.stream(RunRequest("chat", input={"messages": []}, context=FAST)):
            pass
    assert not second.active
    await first.cancel()
    async for _ in events:
        pass
    assert not first.active


async def test_a_dropped_connection_rejoins_with_no_duplicate_and_no_missing_token(
    client: AgentServerClient, agent_server_url: str
) -> None:
    thread_id = await new_thread(client)
    async with (
        DropProxy.in_front_of(agent_server_url) as proxy,
        AgentServerClient(proxy.url) as via_proxy,
    ):
        session = ChatSession(via_proxy, thread_id, backoff=QUICK_BACKOFF)
        events: list[DriverEvent] = []
        tokens: list[str] = []
        drops: list[int] = []  # how many tokens had arrived at each drop
        states: list[str] = []  # the run state shown while reconnecting
        # 15 ms a token: at the second drop the server still has 2 s of tokens to send, so
        # the drop cuts a live stream even when a loaded machine reads it late (at 2 ms the
        # whole answer could already sit in the client's socket, and nothing was cut).
        async for event, _ in session.send(
            RunRequest("chat", context={"token_delay_ms": 15}), "count to 300"
        ):
            if event is None:
                continue
            events.append(event)
            if isinstance(event, Reconnecting):
                states.append(session.machine.state)
            if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
                if not event.duplicate:
                    tokens.append(event.event.text)
                if len(tokens) in (40, 150) and len(tokens) not in drops:
                    assert proxy.drop_all() >= 1  # the stream's connection, at least
                    drops.append(len(tokens))
    assert drops == [40, 150]
    assert states == ["reconnecting", "reconnecting"]
    notices = [i.text for i in session.transcript.items if isinstance(i, NoticeItem)]
    assert notices == ["Connection lost; rejoined the run after 1 attempt."] * 2
    assert [type(e) for e in events if isinstance(e, (Reconnecting, Reconnected))] == [
        Reconnecting,
        Reconnected,
    ] * 2
    expected = " ".join(str(i) for i in range(1, 301))
    # The wire itself, deduplicated: every token once, in order.
    assert "".join(tokens) == expected
    assert finished(events).state == "done"
    messages = await final_messages(client, thread_id)
    assert session.transcript.ai_texts() == [messages[-1]["content"]] == [expected]


async def test_a_run_that_is_gone_is_reported(client: AgentServerClient) -> None:
    thread_id = await new_thread(client)
    session = ChatSession(client, thread_id)
    await send(session, "hello")
    steps = [step async for step in session.join("1f0a0000-0000-7000-8000-000000000000")]
    events = [event for event, _ in steps]
    assert any(isinstance(e, RunGone) for e in events)
    assert isinstance(events[-1], Finished) and events[-1].thread_status == "idle"
    # The transcript was reloaded from the thread's state.
    assert session.transcript.ai_texts() == ["You said: hello"]


async def test_subgraph_events_are_labelled_with_their_namespace(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "nested"})
    session = ChatSession(client, thread.thread_id)
    events: list[DriverEvent] = []
    async for event, _ in session.send(RunRequest("nested", context=FAST), "weather in Oslo"):
        if event is not None:
            events.append(event)
    assert finished(events).state == "done"
    items = session.transcript.items
    updates = [(i.node, i.namespace) for i in items if isinstance(i, NodeUpdateItem)]
    inner = [node for node, namespace in updates if namespace]
    assert inner == ["agent", "tools", "agent"]
    assert all(ns[0].startswith("chat:") for _, ns in updates if ns)
    assert [node for node, namespace in updates if not namespace] == ["prepare", "chat"]
    ais = [i for i in items if isinstance(i, AIItem)]
    assert ais and all(i.namespace and i.namespace[0].startswith("chat:") for i in ais)
    # The parent's update repeats the subgraph's messages: still one item each.
    assert len(ais) == 2 and ais[-1].text.endswith("in Oslo.")
    assert len([i for i in items if isinstance(i, ToolResultItem)]) == 1


async def test_with_values_mode_on_nothing_is_shown_twice(client: AgentServerClient) -> None:
    session = ChatSession(client, await new_thread(client))
    await send(session, "hello")
    events: list[DriverEvent] = []
    async for event, _ in session.send(
        RunRequest("chat", context=FAST, stream_modes=("updates", "messages-tuple", "values")),
        "calc 2+2",
    ):
        if event is not None:
            events.append(event)
    assert finished(events).state == "done"
    humans = [i.text for i in session.transcript.items if isinstance(i, HumanItem)]
    assert humans == ["hello", "calc 2+2"]
    assert session.transcript.ai_texts() == ["You said: hello", "", "2+2 = 4"]
    assert [i.content for i in session.transcript.items if isinstance(i, ToolResultItem)] == [
        "2+2 = 4"
    ]


async def test_without_messages_mode_the_answer_comes_from_the_update(
    client: AgentServerClient,
) -> None:
    session = ChatSession(client, await new_thread(client))
    events: list[DriverEvent] = []
    async for event, changes in session.send(
        RunRequest("chat", stream_modes=("updates",)), "hello"
    ):
        if event is not None:
            events.append(event)
        assert not any(isinstance(c, Appended) for c in changes)
    assert finished(events).state == "done"
    ai = [i for i in session.transcript.items if isinstance(i, AIItem)]
    assert [(i.text, i.streaming, i.node) for i in ai] == [("You said: hello", False, "agent")]


async def test_an_existing_thread_loads_with_its_messages_and_pending_interrupt(
    client: AgentServerClient,
) -> None:
    thread_id = await new_thread(client)
    first = ChatSession(client, thread_id)
    await send(first, "weather in Rome")
    await send(first, "deploy to prod")
    reopened = ChatSession(client, thread_id)
    changes = await reopened.load()
    assert type(changes[0]).__name__ == "Cleared"
    kinds = [type(i).__name__ for i in reopened.transcript.items]
    assert kinds == [
        "HumanItem",
        "AIItem",
        "ToolResultItem",
        "AIItem",
        "HumanItem",
        "AIItem",
        "InterruptItem",
    ]
    assert reopened.machine.state == "interrupted"
    assert reopened.thread_status == "interrupted"
    # Same texts as the session that streamed them.
    assert reopened.transcript.ai_texts() == first.transcript.ai_texts()


async def test_a_server_that_stays_away_ends_the_run_as_an_error_after_the_backoff(
    client: AgentServerClient, agent_server_url: str
) -> None:
    thread_id = await new_thread(client)
    proxy = await DropProxy.in_front_of(agent_server_url).start()
    async with AgentServerClient(proxy.url) as via_proxy:
        driver = RunDriver(via_proxy, thread_id, backoff=QUICK_BACKOFF)
        events: list[DriverEvent] = []
        async for event in driver.stream(
            RunRequest(
                "chat",
                input={"messages": [{"role": "user", "content": "count to 150"}]},
                context={"token_delay_ms": 5},
            )
        ):
            events.append(event)
            if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
                await proxy.stop()  # no one answers at that address any more
    attempts = [e for e in events if isinstance(e, Reconnecting)]
    assert [(a.attempt, a.delay_s) for a in attempts] == [(1, 0.05), (2, 0.1), (3, 0.2)]
    end = finished(events)
    assert end.state == "error" and end.reason and "gave up reconnecting" in end.reason
    assert not driver.active
    # The run itself went on without us (on_disconnect defaults to continue).
    await client.runs.join(thread_id, end.run_id or "")
    assert (await client.threads.get(thread_id)).status == "idle"


async def test_cancel_pressed_right_after_sending_cancels_the_run(
    client: AgentServerClient,
) -> None:
    session = ChatSession(client, await new_thread(client))
    events: list[DriverEvent] = []
    async for event, _ in session.send(
        RunRequest("chat", context={"token_delay_ms": 5}), "count to 2000"
    ):
        if event is None:
            assert await session.cancel()  # before the server has even answered
        else:
            events.append(event)
    assert finished(events).state == "cancelled"
    assert all(len(text.split()) < 2000 for text in session.transcript.ai_texts())
    # The run is cancelled whether it had started or not; the thread says `interrupted`
    # only when it had (the runtime leaves a thread whose run never began `idle`).
    [run] = await client.runs.list(session.thread_id)
    assert run.status == "interrupted"
    assert (await client.threads.get(session.thread_id)).status in {"interrupted", "idle"}
    assert not await session.cancel()  # nothing left to cancel


async def test_a_connection_cut_inside_an_event_loses_nothing(
    client: AgentServerClient, agent_server_url: str
) -> None:
    thread_id = await new_thread(client)
    async with (
        DropProxy.in_front_of(agent_server_url) as proxy,
        AgentServerClient(proxy.url) as via_proxy,
    ):
        session = ChatSession(via_proxy, thread_id, backoff=QUICK_BACKOFF)
        await send(session, "warm up")  # the pooled connection is reused below
        proxy.drop_after_bytes(20_000)  # lands in the middle of some token's event
        events, _ = await send(session, "count to 200", context={"token_delay_ms": 1})
    assert proxy.connections_dropped >= 1
    assert any(isinstance(e, Reconnected) for e in events)
    tokens = [
        e.event.text
        for e in events
        if isinstance(e, Received) and isinstance(e.event, MessagesEvent) and not e.duplicate
    ]
    expected = " ".join(str(i) for i in range(1, 201))
    assert "".join(tokens) == expected
    assert session.transcript.ai_texts()[-1] == expected


async def test_a_new_thread_without_state_loads_as_an_empty_transcript(
    client: AgentServerClient,
) -> None:
    session = ChatSession(client, await new_thread(client))
    changes = await session.load()
    assert [type(c).__name__ for c in changes] == ["Cleared"]
    assert session.transcript.items == [] and session.thread_status == "idle"
    events, _ = await send(session, "hi")
    assert finished(events).state == "done"
    assert session.transcript.ai_texts() == ["You said: hi"]


async def test_leaving_a_run_early_closes_its_stream_and_reports_nothing(
    client: AgentServerClient,
) -> None:
    """A script that stops reading after a few tokens (`aclosing` + `break`) leaves no
    stream open and no "asynchronous generator is already running" error behind."""
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    try:
        session = ChatSession(client, await new_thread(client))
        tokens = 0
        steps = session.send(RunRequest("chat", context={"token_delay_ms": 20}), "count to 500")
        async with contextlib.aclosing(steps):
            async for event, _ in steps:
                if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
                    tokens += 1
                    if tokens == 5:
                        break
        assert not session.driver.active  # the run's stream is closed, here and now
        await asyncio.sleep(0)  # any finaliser the loop was left would run now
        assert reported == []
    finally:
        loop.set_exception_handler(None)
