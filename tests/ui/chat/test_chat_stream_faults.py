"""The chat pane against run streams that misbehave, on the real agent server: a stream
that never ends (a flood), one that goes silent without closing, one left open with only
heartbeats, one that sends `event: error` and stays open, one cut mid-event
(`stream_faults.py` breaks the stream, the run is real), and a dropped connection whose rejoin replays events
(`drop_proxy.py`)."""

from __future__ import annotations

import json
from typing import Literal

import pytest

from agent_tui.chat.items import AIItem, CustomItem
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    errors,
    final_messages,
    notices,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.drop_proxy import DropProxy
from tests.support.screen import screen_text, toasts
from tests.support.stream_faults import Fault, FaultyStreams
from tests.support.waiting import WaitFor, press_in_flood, wait_in_flood


def counting(n: int) -> str:
    return " ".join(str(i) for i in range(1, n + 1))


async def test_a_stream_that_never_ends_stays_bounded_and_esc_closes_it_and_cancels_the_run(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
) -> None:
    # Runs on while the flood comes: ~200 s, however long a loaded machine takes to flood
    # the app (at 20 ms a token it had ended before esc, under load 12).
    slow = await chat_assistant(client, token_delay_ms=100)
    thread = await chat_thread(client, slow)
    faults.arm(Fault("flood", after_events=5))
    app, screen = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE):
        pane = pane_of(app)
        # Small limits, so that the flood goes past them in a moment.
        pane.inspector.max_records = 500
        pane.model.live.head_chars = pane.model.live.tail_chars = 1_000
        pane.model.max_run_items = 100
        # Keys pressed without waiting for an idle screen: a flooded app on a loaded
        # machine may not become idle within Pilot's wait.
        pane.prompt.focus()
        pane.prompt.insert("count to 2000")
        await press_in_flood(app, "enter")
        await wait_in_flood(
            lambda: bool(faults.streams) and faults.streams[0].made_up >= 6_000,
            what="the flood",
        )
        flood = faults.streams[0]
        # The inspector keeps the latest events and says how many it let go.
        assert len(pane.inspector.records) <= 500
        assert pane.inspector.dropped >= 5_000
        assert pane.inspector.records[-1].event in ("messages", "custom")
        await press_in_flood(app, "f2")
        await wait_in_flood(
            # The inspector's lines first: a screenshot per poll costs the flooded app time.
            lambda: (
                pane.inspector.shown_lines > 0 and "earlier events not kept" in screen_text(app)
            ),
            what="the inspector's border and lines",
            every=0.2,
        )
        # The endless message keeps its head and its latest text while it streams, and
        # says what it does not show.
        [endless] = [
            item for item in pane.model.items if isinstance(item, AIItem) and item.key == "endless"
        ]
        assert len(endless.text) < 3_400
        assert "characters not shown while the message streams" in endless.text
        # The run's items stop at the limit, with a word about the rest.
        assert len([item for item in pane.model.items if isinstance(item, CustomItem)]) < 100
        assert len(pane.model.items) <= 110
        assert any("more than 100 transcript items" in text for text in notices(pane))

        # esc closes the stream here whatever the server does, and cancels the run there.
        await press_in_flood(app, "escape")
        await wait_in_flood(lambda: ended(pane), what="the cancel")
        assert flood.closed.is_set()
        assert pane.run_state == "cancelled" and state_line(pane).startswith("cancelled")
        assert "Run cancelled." in notices(pane)
        assert app.screen is screen
        [run] = await client.runs.list(thread.thread_id)
        assert run.status == "interrupted"


async def test_an_error_event_ends_the_run_even_if_the_stream_stays_open(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    wait_for: WaitFor,
) -> None:
    slow = await chat_assistant(client, token_delay_ms=5)
    thread = await chat_thread(client, slow)
    faults.arm(Fault("error", after_events=5))
    app, _ = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        # The states and the errors shown, as they change: the thread is read again once
        # the run is over, and the server, which knows nothing of the fault, has it resting
        # (idle, no failure): the line and the transcript say so a moment later.
        states: list[str] = []
        shown: set[tuple[str, str]] = set()

        def changed() -> None:
            states.append(pane.machine.state)
            shown.update((e.error, e.message) for e in errors(pane))

        pane.machine.subscribe(changed)
        await type_and_send(pilot, pane, "count to 500")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert pane.machine.ended == "error" and "error" in states
        assert states[states.index("error") - 1] == "running"  # ended by the error event
        assert shown == {("Boom", "the server failed and kept the stream open")}
        assert faults.streams[0].closed.is_set()


async def test_a_stream_that_goes_silent_after_the_run_ended_shows_the_final_state(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    fast_chat: Assistant,
    wait_for: WaitFor,
) -> None:
    thread = await chat_thread(client, fast_chat)
    faults.arm(Fault("stall", after_events=10))
    app, _ = chat_app(faulty, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        pane.session.driver.stall_timeout = 1.0  # the server's heartbeats come every 5 s
        await type_and_send(pilot, pane, "count to 300")
        await wait_for(pilot, lambda: ended(pane), what="the silence to be noticed")
        assert faults.streams[0].faulty.is_set() and faults.streams[0].closed.is_set()
        assert (await client.threads.get(thread.thread_id)).status == "idle"
        assert pane.run_state == "done" and state_line(pane).startswith("done")
        # What arrived before the silence is completed from the thread's state.
        assert ai_texts(pane) == [counting(300)]
        assert await final_messages(client, thread.thread_id) == [
            ("human", "count to 300"),
            ("ai", counting(300)),
        ]


async def test_a_stream_left_open_with_only_heartbeats_after_the_run_ended_is_noticed(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    fast_chat: Assistant,
    wait_for: WaitFor,
) -> None:
    thread = await chat_thread(client, fast_chat)
    faults.arm(Fault("heartbeats", after_events=10))
    app, _ = chat_app(faulty, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        pane.session.driver.stall_timeout = 1.0
        await type_and_send(pilot, pane, "count to 300")
        await wait_for(pilot, lambda: ended(pane), what="the idle thread to be noticed")
        assert faults.streams[0].closed.is_set()
        assert pane.run_state == "done" and state_line(pane).startswith("done")
        assert ai_texts(pane) == [counting(300)]


async def test_a_stream_that_goes_silent_while_the_run_goes_on_is_rejoined(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    wait_for: WaitFor,
) -> None:
    slow = await chat_assistant(client, token_delay_ms=5)  # about 5 s: still running
    thread = await chat_thread(client, slow)
    faults.arm(Fault("stall", after_events=10))
    app, _ = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        pane.session.driver.stall_timeout = 1.0
        # Every state the run went through, as it changes: the state line says each (read
        # by polling the line, a short "reconnecting…" was missed under load).
        states: list[str] = []
        pane.machine.subscribe(lambda: states.append(pane.machine.state))
        await type_and_send(pilot, pane, "count to 1000")
        await wait_for(pilot, lambda: ended(pane), what="the run to end", workers=False)
        assert faults.streams[0].closed.is_set()
        assert "reconnecting" in states
        assert "Connection lost; rejoined the run after 1 attempt." in notices(pane)
        assert pane.run_state == "done"
        assert ai_texts(pane) == [counting(1000)]


async def test_events_a_rejoin_replays_are_not_in_the_inspector_twice(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await chat_assistant(client, token_delay_ms=3)
    thread = await chat_thread(client, assistant)
    async with (
        DropProxy.in_front_of(agent_server_url) as proxy,
        AgentServerClient(proxy.url) as via_proxy,
    ):
        app, _ = chat_app(via_proxy, thread.thread_id, assistant)
        async with app.run_test(size=SIZE) as pilot:
            pane = pane_of(app)
            await type_and_send(pilot, pane, "count to 1000")
            await wait_for(
                pilot, lambda: len("".join(ai_texts(pane))) > 30, what="tokens", workers=False
            )
            assert proxy.drop_all() >= 1
            await wait_for(pilot, lambda: ended(pane), what="the run to end")
            assert "Connection lost; rejoined the run after 1 attempt." in notices(pane)
            records = pane.inspector.records
            # Each event once: 1,000 tokens are 1,000 token events, in order.
            assert len({(r.event, r.event_id, r.data) for r in records}) == len(records)
            tokens = [json.loads(r.data)[0]["content"] for r in records if r.event == "messages"]
            assert "".join(tokens) == counting(1000)


@pytest.mark.parametrize("kind", ["cut", "half"])
async def test_a_stream_cut_mid_event_says_so_and_that_the_server_is_up(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    wait_for: WaitFor,
    kind: Literal["cut", "half"],
) -> None:
    # The connection breaks inside an event (`cut`), or closes there as if the body were
    # done (`half`), while the server is up: no "cannot reach the server", no offline.
    slow = await chat_assistant(client, token_delay_ms=5)  # about 5 s: still running
    thread = await chat_thread(client, slow)
    offline: list[str] = []
    faulty.transport.failure_listeners.append(offline.append)
    faults.arm(Fault(kind, after_events=10))
    app, _ = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "count to 1000")
        said: list[str] = []

        def finished() -> bool:
            said.extend(toasts(app))
            return ended(pane)

        await wait_for(pilot, finished, what="the run to end", workers=False)
        assert faults.streams[0].faulty.is_set()
        rejoining = [text for text in said if "rejoining the run" in text]
        assert rejoining, said
        assert "the stream was cut mid-event; the server is up" in rejoining[0]
        assert not any("Cannot reach the server" in text for text in said)
        assert offline == []
        assert "Connection lost; rejoined the run after 1 attempt." in notices(pane)
        assert pane.run_state == "done"
        assert ai_texts(pane) == [counting(1000)]  # the half-sent event came with the rejoin
