"""The chat on langgraph-api and on Aegra: an interrupt answered, a breakpoint continued and
stepped, a run cancelled, each reopened later — the same keys and the same answers on
both servers (issue 22), although Aegra records these outcomes differently
(docs/server-quirks.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from textual.widgets import DataTable, Input

from agent_tui.chat.items import InterruptItem
from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.breakpoints_modal import BreakpointsScreen
from agent_tui.tui.chat.interrupt import InterruptBlock
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    notices,
    pane_of,
    state_line,
    state_messages,
    transcript_messages,
    type_and_send,
)
from tests.support.servers import Server, server
from tests.support.waiting import WaitFor

__all__ = ["server"]  # the fixture: each test runs once per server


@pytest.fixture
async def on(server: Server) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(server.url) as client:
        yield client


async def test_an_interrupt_is_answered_and_the_reopened_thread_is_the_same(
    on: AgentServerClient, wait_for: WaitFor
) -> None:
    fast = await chat_assistant(on)
    thread = await chat_thread(on, fast)
    app, _ = chat_app(on, thread.thread_id, fast)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, "deploy to staging")
        await wait_for(pilot, lambda: ended(pane), what="the interrupt")
        # A question, not a cancel (Aegra ends such a run `interrupted`).
        assert pane.run_state == "interrupted", state_line(pane)
        assert "cancelled" not in " ".join(notices(pane))
        [item] = [i for i in pane.model.items if isinstance(i, InterruptItem)]
        assert item.value["question"] == "Deploy to staging? (yes/no)"

    # Reopened: the question waits (read from the thread's state) and is answered here.
    app, _ = chat_app(on, thread.thread_id, fast)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(
            pilot,
            lambda: any(isinstance(i, InterruptItem) for i in pane.model.items),
            what="the waiting question",
        )
        assert pane.run_state == "interrupted"
        [item] = [i for i in pane.model.items if isinstance(i, InterruptItem)]
        block = pane.transcript.block(item.key)
        assert isinstance(block, InterruptBlock)
        await wait_for(pilot, lambda: bool(block.query(Input)), what="the answer's field")
        block.query_one(Input).focus()
        await pilot.press("y", "e", "s", "enter")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="resume"
        )
        assert ai_texts(pane)[-1] == "Deployed to staging."
        assert transcript_messages(pane) == await state_messages(on, thread.thread_id)


async def test_a_breakpoint_pauses_steps_and_continues(
    on: AgentServerClient, wait_for: WaitFor
) -> None:
    fast = await chat_assistant(on)
    thread = await chat_thread(on, fast)
    app, _ = chat_app(on, thread.thread_id, fast)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        pane.transcript.focus()
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BreakpointsScreen), what="modal")
        modal = app.screen
        assert isinstance(modal, BreakpointsScreen)
        await wait_for(pilot, lambda: bool(modal.nodes), what="the graph's nodes")
        rows = [node.name for node in modal.nodes]
        modal.query_one(DataTable).move_cursor(row=rows.index("tools"))
        await pilot.press("b", "enter")
        await wait_for(pilot, lambda: "‖ before: tools" in state_line(pane), what="state line")

        await type_and_send(pilot, pane, "weather in Paris")
        await wait_for(
            pilot,
            lambda: ended(pane) and pane.paused_bar.paused_text == "paused before tools",
            what="the pause before tools",
        )
        assert (await on.threads.get_state(thread.thread_id)).next == ["tools"]
        await wait_for(pilot, lambda: pane.paused_bar.has_focus, what="focus", workers=False)
        await pilot.press("s")  # tools runs; the run stops before agent
        await wait_for(
            pilot,
            lambda: ended(pane) and pane.paused_bar.paused_text == "paused before agent",
            what="the pause before agent",
        )
        await wait_for(pilot, lambda: pane.paused_bar.has_focus, what="focus", workers=False)
        await pilot.press("c")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Paris.")
        assert transcript_messages(pane) == await state_messages(on, thread.thread_id)


async def test_a_cancelled_run_reads_as_cancelled_also_when_reopened(
    on: AgentServerClient, wait_for: WaitFor
) -> None:
    slow = await chat_assistant(on, token_delay_ms=5)
    thread = await chat_thread(on, slow)
    app, _ = chat_app(on, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, "count to 2000")
        await wait_for(
            pilot, lambda: len("".join(ai_texts(pane))) > 20, what="tokens", workers=False
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: ended(pane), what="the cancel")
        assert pane.run_state == "cancelled" and "Run cancelled." in notices(pane)
        assert not ai_texts(pane)[-1].endswith("1999 2000")

    app, _ = chat_app(on, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the transcript")
        assert pane.run_state == "cancelled" and state_line(pane).startswith("cancelled")
        assert notices(pane)[-1] == "The last run was cancelled before agent finished."
        assert not pane.paused_bar.display
