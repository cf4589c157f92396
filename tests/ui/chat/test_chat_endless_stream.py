"""A run that streams large chunks for ever (`stream_faults`' `endless`, on the real
server's run): what the chat shows of it stays bounded, and says what it leaves out."""

from __future__ import annotations

from textual import events

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.ai_block import AIBlock
from tests.support.chat import (
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    pane_of,
)
from tests.support.screen import screen_text
from tests.support.stream_faults import Fault, FaultyStreams
from tests.support.waiting import WaitFor

NOTE = "characters not shown while the message streams"


async def test_an_endless_message_shows_its_head_and_latest_text_and_the_inspector_its_latest(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    wait_for: WaitFor,
) -> None:
    slow = await chat_assistant(client, token_delay_ms=20)  # runs on while the stream comes
    thread = await chat_thread(client, slow)
    # 100-character chunks of one message that never ends.
    faults.arm(Fault("endless", after_events=5, chunk_chars=100, chunks_per_message=10**9))
    app, screen = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        # Small limits, so that the stream goes past them in a moment.
        pane.inspector.max_records = 200
        pane.model.live.head_chars, pane.model.live.tail_chars = 200, 1_000
        # Not Pilot's keys while the stream comes: they wait for an idle app, which a
        # stream that never ends does not leave.
        pane.send("count to 2000")
        await wait_for(
            pilot,
            lambda: bool(faults.streams) and faults.streams[0].made_up >= 1_000,
            what="1,000 chunks (100,000 characters)",
            workers=False,
        )

        def live_block() -> AIBlock | None:
            blocks = [b for b in pane.query(AIBlock) if b.item.key.startswith("endless")]
            return blocks[0] if blocks else None

        # The message shows its first and its latest chunks, and between them a note
        # saying how much is left out and where the whole text is.
        await wait_for(
            pilot,
            lambda: (block := live_block()) is not None and NOTE in block.shown_text,
            what="the note in the live message",
            workers=False,
        )
        app.post_message(events.Key("escape", None))
        await wait_for(pilot, lambda: ended(pane), what="the cancel", workers=False)
        assert faults.streams[0].closed.is_set()
        assert faults.streams[0].made_up >= 1_000
        block = live_block()
        assert block is not None
        shown = block.shown_text
        assert shown.startswith("chunk 0 of an answer that never ends")
        assert len(shown) < 200 + 2 * 1_000 + 400
        # The user reads it: the head, then the note.
        pane.transcript.focus()
        await wait_for(pilot, lambda: pane.transcript.has_focus, what="the transcript's focus")
        await pilot.press("home")

        def head_and_note_on_screen() -> bool:
            text = screen_text(app)
            return NOTE in text and "chunk 0 of an answer that never ends" in text

        await wait_for(pilot, head_and_note_on_screen, what="the head and the note on screen")
        assert "the whole message is in the thread's state" in screen_text(app)

        # The inspector kept the latest events and says that older ones were dropped.
        assert len(pane.inspector.records) <= 200
        await pilot.press("f2")
        await wait_for(
            pilot,
            lambda: "earlier events not kept" in screen_text(app),
            what="the inspector's border",
        )
        assert app.screen is screen
