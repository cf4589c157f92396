"""What a long transcript keeps in memory: its drawn lines as Rich drew them, and a strip
only for a line Textual asked for (`tui.chat.markdown_lines`)."""

from __future__ import annotations

import gc

from textual.app import App, ComposeResult
from textual.strip import Strip

from agent_tui.chat.items import Added, AIItem
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.transcript import TranscriptView
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

SIZE = (100, 30)


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()


def strips_alive() -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, Strip))


async def strips_for_an_answer(paragraphs: int, wait_for: WaitFor) -> int:
    """The strips an answer of `paragraphs` paragraphs added once drawn (its start shown),
    scrolled to its end and back."""
    app = TranscriptApp()
    async with app.run_test(size=SIZE) as pilot:
        before = strips_alive()
        text = "\n\n".join(f"paragraph {n} says hello" for n in range(paragraphs))
        transcript = app.query_one(TranscriptView)
        transcript.apply([Added(AIItem("m1", text=text))])
        await wait_for(
            pilot,
            lambda: [b.shown_text for b in app.query(AIBlock) if isinstance(b, AIBlock)] == [text],
            what="the answer drawn",
        )
        transcript.scroll_end(animate=False)
        last = f"paragraph {paragraphs - 1} says hello"
        await wait_for(pilot, lambda: last in screen_text(app), what="its end")
        transcript.scroll_home(animate=False)
        await wait_for(pilot, lambda: "paragraph 0 says hello" in screen_text(app), what="start")
        return strips_alive() - before


async def test_a_long_answer_keeps_no_strip_for_each_of_its_lines(wait_for: WaitFor) -> None:
    short = await strips_for_an_answer(40, wait_for)
    long = await strips_for_an_answer(400, wait_for)
    # The long answer has 360 paragraphs more, the screen the same 30 rows: what Textual
    # keeps for the rows it showed is the same. Kept as strips, each paragraph's line
    # stayed alive with the answer (360 more; the blank lines are one shared line).
    assert long - short < 100, (short, long)
