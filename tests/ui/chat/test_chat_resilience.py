"""The chat pane when things go wrong, against the real agent server: a connection that
drops mid-stream (through a loopback proxy the test cuts), a thread busy with a run
started elsewhere (followed live), a thread deleted under the view, read-only mode."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from textual.widgets import Static

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from agent_tui.tui.chat.pane import ChatPane
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    final_messages,
    humans,
    notices,
    pane_of,
    run_elsewhere,
    shown_ai_texts,
    state_line,
    type_and_send,
)
from tests.support.drop_proxy import DropProxy
from tests.support.screen import footer_keys, screen_text, toast_saying, toasts
from tests.support.waiting import WaitFor


def streamed_tokens(pane: ChatPane) -> list[str]:
    """The text of every token event the inspector recorded, in order."""
    tokens: list[str] = []
    for record in pane.inspector.records:
        if record.event == "messages":
            chunk = json.loads(record.data)[0]
            tokens.append(chunk.get("content", ""))
    return tokens


async def test_a_dropped_connection_rejoins_and_the_transcript_equals_the_final_state(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    # Slow enough that the drop lands mid-stream: 1,000 tokens, 3 ms apart.
    assistant = await chat_assistant(client, token_delay_ms=3)
    thread = await chat_thread(client, assistant)
    expected = " ".join(str(i) for i in range(1, 1001))
    async with (
        DropProxy.in_front_of(agent_server_url) as proxy,
        AgentServerClient(proxy.url) as via_proxy,
    ):
        app, _ = chat_app(via_proxy, thread.thread_id, assistant)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            pane = pane_of(app)
            await type_and_send(pilot, pane, "count to 1000")
            await wait_for(
                pilot, lambda: len("".join(ai_texts(pane))) > 30, what="tokens", workers=False
            )
            # Every state line drawn, as it is drawn: "reconnecting…" can come and go
            # between two looks under load.
            lines: list[str] = []
            state = pane.query_one("#chat-state", Static)
            draw = state.update

            def drawn(content: Any = "", **options: Any) -> None:
                lines.append(str(content))
                draw(content, **options)

            state.update = drawn  # type: ignore[method-assign]
            assert proxy.drop_all() >= 1
            said: list[str] = []  # the toasts, looked at while they are shown

            def finished() -> bool:
                said.extend(toasts(app))
                return ended(pane)

            await wait_for(pilot, finished, what="the run to end", workers=False)
            assert any(line.startswith("reconnecting…") for line in lines)
            assert any("rejoining the run" in toast for toast in said)
            assert "Connection lost; rejoined the run after 1 attempt." in notices(pane)
            assert pane.run_state == "done"
            # No token lost, none twice: what shows is what the thread holds.
            assert await final_messages(client, thread.thread_id) == [
                ("human", "count to 1000"),
                ("ai", expected),
            ]
            # The inspector took each event once too (the rejoin replayed some).
            assert "".join(streamed_tokens(pane)) == expected
            assert ai_texts(pane) == [expected]
            await wait_for(pilot, lambda: shown_ai_texts(pane) == [expected])


async def test_a_thread_busy_with_a_run_from_elsewhere_is_followed_live_and_can_be_cancelled(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    # 40 s of tokens at the least: the cancel comes long before the end, however slow a
    # loaded machine makes the steps before it.
    slow = await chat_assistant(client, token_delay_ms=20)
    thread = await chat_thread(client, slow)
    async with run_elsewhere(client, thread.thread_id, slow.assistant_id, "count to 2000"):
        app, _ = chat_app(client, thread.thread_id, slow)
        async with app.run_test(size=SIZE) as pilot:
            pane = pane_of(app)
            # The view joins the run: its answer grows here too.
            await wait_for(
                pilot, lambda: len("".join(ai_texts(pane))) > 20, what="tokens", workers=False
            )
            assert state_line(pane).startswith("running")
            await type_and_send(pilot, pane, "me too")
            # A run from elsewhere is a run like any other: sending asks how (esc: not now).
            await wait_for(
                pilot, lambda: isinstance(app.screen, DoubleTextScreen), what="how", workers=False
            )
            await pilot.press("escape")
            await wait_for(
                pilot,
                lambda: not isinstance(app.screen, DoubleTextScreen),
                what="back",
                workers=False,
            )
            assert pane.prompt.text == "me too"
            await pilot.press("escape")
            await wait_for(pilot, lambda: ended(pane), what="the cancel")
            assert pane.run_state == "cancelled"
            assert pane.prompt.text == "me too"
            assert humans(pane) == ["count to 2000"]  # from the thread's state
            # A run started without `stream_resumable` replays only what comes after the
            # join: the answer shows from there, in order, and stops where it was cancelled.
            numbers = [int(word) for word in ai_texts(pane)[-1].split()]
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
            assert numbers[-1] < 2000
            [run] = await client.runs.list(thread.thread_id)
            assert run.status == "interrupted"


async def test_a_send_that_fails_keeps_the_draft_and_says_why(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await chat_assistant(client, token_delay_ms=0)
    thread = await chat_thread(client, assistant)
    app, screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        await client.threads.delete(thread.thread_id)
        await type_and_send(pilot, pane, "anyone there?")
        await wait_for(
            pilot,
            lambda: not pane.machine.active and any("not found" in t.lower() for t in toasts(app)),
            what="the run refused, saying why",
        )
        assert pane.prompt.text == "anyone there?"
        assert pane.run_state == "idle"
        assert any(text.startswith("Not sent") for text in notices(pane))


async def test_read_only_mode_refuses_to_run_and_keeps_the_draft(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant: Assistant = await chat_assistant(client, token_delay_ms=0)
    thread = await chat_thread(client, assistant)
    app, screen = chat_app(client, thread.thread_id, assistant, readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        # The empty chat says so before anything is typed.
        hint = "Read-only: this context can show runs but not start them."
        # The hint wraps inside the chat column; once the history beside it has loaded,
        # its border sits between the wrapped lines of the screen's text.
        await wait_for(
            pilot,
            lambda: hint in " ".join(screen_text(app).replace("│", " ").split()),
            what="hint",
        )
        await type_and_send(pilot, pane, "hello")
        await pilot.pause()
        assert pane.prompt.text == "hello" and humans(pane) == []
        await toast_saying(pilot, "Read-only")
        assert (await client.runs.list(thread.thread_id)) == []


async def test_read_only_mode_follows_a_running_thread_but_does_not_cancel_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    # About 15 s of tokens: under load the app must still join the run while it streams
    # (at 5 ms a token it had ended before the app opened, once, with two suites at once).
    slow = await chat_assistant(client, token_delay_ms=25)
    thread = await chat_thread(client, slow)
    async with run_elsewhere(client, thread.thread_id, slow.assistant_id, "count to 600") as other:
        app, screen = chat_app(client, thread.thread_id, slow, readonly=True)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            pane = pane_of(app)
            await wait_for(pilot, lambda: bool(ai_texts(pane)), what="tokens", workers=False)
            await pilot.press("ctrl+c")
            await toast_saying(pilot, "Read-only")
            assert pane.machine.active and pane.run_state == "running"
            # The footer says so: esc means Back here, not Cancel run.
            await wait_for(
                pilot,
                lambda: footer_keys(app).get("esc") == "Back",
                what="esc Back in the footer",
                workers=False,
            )
            await pilot.press("escape")  # leaves; the run goes on on the server
            await wait_for(pilot, lambda: app.screen is not screen, what="back", workers=False)
        await asyncio.wait_for(other, 90)
        [run] = await client.runs.list(thread.thread_id)
        assert run.status == "success"
