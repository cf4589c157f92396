"""A transcript cleared while an update of an AI message is on its way (issue 30: `esc`
on a run flooding tokens, then the thread reloaded): the block being removed, or not
drawn yet, is not updated, and the app keeps running. Before, the scheduled update ran
on the block whose widgets were gone: `NoMatches: '.block-label'`, and the app exited."""

from __future__ import annotations

import asyncio
import logging

import pytest
from textual.app import App, ComposeResult

from agent_tui.chat.items import Added, AIItem, Appended, Cleared, HumanItem, Updated
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.transcript import TranscriptView
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()

    @property
    def transcript(self) -> TranscriptView:
        return self.query_one(TranscriptView)


async def test_a_transcript_cleared_while_it_draws_a_long_text_does_not_end_the_app(
    wait_for: WaitFor, caplog: pytest.LogCaptureFixture
) -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        first, second = AIItem("m1", text="first"), AIItem("m2", text="second")
        transcript.apply([Added(first), Added(second)])
        await wait_for(pilot, lambda: "second" in screen_text(app), what="both messages")
        [first_block, _] = app.query(AIBlock)
        # Tokens of the first message, a long text: drawn in steps, with the loop free
        # in between; the second re-shown whole.
        tokens = "".join(f"\n\nparagraph {n} of a long answer" for n in range(3_000))
        first.text += tokens
        second.text = "second, re-shown"
        transcript.apply([Appended(first, tokens), Updated(second)])
        first_block.flush()
        await asyncio.sleep(0)  # one step of the drawing, not all of it
        assert not first_block.text_view.caught_up
        # Meanwhile the run is cancelled and the thread reloaded: the transcript is
        # cleared, the blocks removed while the first one is still drawing.
        transcript.apply([Cleared(), Added(HumanItem("h1", "after the reload"))])
        await wait_for(pilot, lambda: "after the reload" in screen_text(app), what="the reload")
        await wait_for(pilot, lambda: len(app.query(AIBlock)) == 0, what="the blocks gone")
        await pilot.pause(0.1)
        assert app.is_running and app.return_code is None
        assert "first" not in screen_text(app) and "paragraph" not in screen_text(app)
    # Not even a block that "could not be drawn": a removed block has nothing to draw.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
