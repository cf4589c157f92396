"""The last line of defence of the transcript (issue 30): a block that cannot draw its
item shows that this one item could not be drawn, logs the traceback, and the app and
the other blocks go on. No real run can make a block raise on demand, so these tests
make one block class raise on a real run of the demo chat graph."""

from __future__ import annotations

import logging

import pytest
from textual.app import App, ComposeResult

from agent_tui.chat.items import Added, AIItem, Updated
from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.transcript import TranscriptView
from tests.support.chat import (
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

FAILED = "⚠ This AI message could not be drawn"
SAID = f"{FAILED} (RuntimeError: cannot draw this). The details are in the log."


def _raise(*_: object) -> None:
    raise RuntimeError("cannot draw this")


async def _run_once(client: AgentServerClient, wait_for: WaitFor) -> str:
    """Send one message; return the screen once the run ended and the failure shows."""
    assistant = await chat_assistant(client)
    thread = await chat_thread(client, assistant)
    app, _ = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hello there")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        await wait_for(pilot, lambda: FAILED in screen_text(app), what="the failure shown")
        [block] = pane.query(AIBlock)
        assert [str(s.render()) for s in block.query(".draw-error")] == [SAID]
        assert state_line(pane).startswith("done"), state_line(pane)
        assert any(isinstance(item, AIItem) for item in pane.model.items)
        assert app.is_running
        return screen_text(app)


async def test_a_block_whose_drawing_raises_says_so_and_the_app_goes_on(
    client: AgentServerClient,
    wait_for: WaitFor,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(AIBlock, "compose_item", _raise)
    with caplog.at_level(logging.ERROR):
        shown = await _run_once(client, wait_for)
    assert "hello there" in shown  # the human's message is drawn
    [record] = [r for r in caplog.records if "Could not draw" in r.getMessage()]
    assert record.getMessage() == "Could not draw this AI message (AIItem)"
    assert record.exc_info is not None and "cannot draw this" in str(record.exc_info[1])


async def test_a_block_whose_update_raises_says_so_and_the_app_goes_on(
    client: AgentServerClient,
    wait_for: WaitFor,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Drawn while it streams; the final update (the label without "…") raises.
    label = AIBlock._label

    def label_until_complete(block: AIBlock) -> object:
        if not block.item.streaming:
            _raise()
        return label(block)

    monkeypatch.setattr(AIBlock, "_label", label_until_complete)
    with caplog.at_level(logging.ERROR):
        shown = await _run_once(client, wait_for)
    assert "hello there" in shown
    assert any("Could not draw" in r.getMessage() for r in caplog.records)


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()


async def test_a_drawn_block_whose_final_update_raises_says_so_and_the_app_goes_on(
    wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The block is on screen when its final update comes (no reload draws it anew).
    label = AIBlock._label

    def label_until_complete(block: AIBlock) -> object:
        if not block.item.streaming:
            _raise()
        return label(block)

    monkeypatch.setattr(AIBlock, "_label", label_until_complete)
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.query_one(TranscriptView)
        item = AIItem("m1", text="streaming")
        transcript.apply([Added(item)])
        await wait_for(pilot, lambda: "streaming" in screen_text(app), what="the message")
        item.streaming = False
        transcript.apply([Updated(item)])
        await wait_for(pilot, lambda: FAILED in screen_text(app), what="the failure shown")
        assert app.is_running
