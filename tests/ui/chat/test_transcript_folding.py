"""A transcript draws its newest blocks only while it follows its end: older items are
folded behind one line and come back a page at a time (`home` at the top, or a click)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agent_tui.chat.items import Added, AIItem, Appended, NoticeItem, Updated
from agent_tui.tui.chat.blocks import ChatBlock
from agent_tui.tui.chat.transcript import (
    FOLD_SLACK,
    MAX_DRAWN,
    UNFOLD_PAGE,
    FoldedMarker,
    TranscriptView,
)
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()

    @property
    def transcript(self) -> TranscriptView:
        return self.query_one(TranscriptView)


def notices(start: int, stop: int) -> list[NoticeItem]:
    return [NoticeItem(f"n{i}", f"line {i}") for i in range(start, stop)]


def drawn(app: TranscriptApp) -> int:
    return len(app.query(ChatBlock))


async def test_a_long_history_draws_its_newest_items_and_unfolds_older_ones_page_by_page(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(90, 20)) as pilot:
        view = app.transcript
        view.focus()
        view.apply(Added(item) for item in notices(0, 300))
        await wait_for(pilot, lambda: "line 299" in screen_text(app), what="the newest item")
        folded = 300 - MAX_DRAWN
        assert drawn(app) == MAX_DRAWN and view.folded == folded
        assert app.query_one(FoldedMarker).display

        await pilot.press("home")
        await wait_for(pilot, lambda: f"{folded} earlier items not drawn" in screen_text(app))
        assert f"line {folded} " in screen_text(app)  # the oldest item drawn
        await pilot.press("home")  # at the top: a page more
        await wait_for(pilot, lambda: drawn(app) == MAX_DRAWN + UNFOLD_PAGE, what="a page drawn")
        assert view.folded == folded - UNFOLD_PAGE
        await wait_for(pilot, lambda: f"{folded - UNFOLD_PAGE} earlier" in screen_text(app))

        # Reading above, nothing folds under the reader; following again, it does.
        view.apply(Added(item) for item in notices(300, 310))
        await pilot.pause()
        assert drawn(app) == MAX_DRAWN + UNFOLD_PAGE + 10 and view.scroll_y == 0
        await pilot.press("end")
        await wait_for(pilot, lambda: drawn(app) == MAX_DRAWN, what="folded again")
        assert "line 309" in screen_text(app)


async def test_a_folded_message_that_changes_shows_its_latest_text_when_unfolded(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(90, 20)) as pilot:
        view = app.transcript
        view.focus()
        answer = AIItem("a0", text="first words", streaming=True)
        view.apply([Added(answer)])
        view.apply(Added(item) for item in notices(0, MAX_DRAWN + FOLD_SLACK))
        await wait_for(pilot, lambda: view.folded == FOLD_SLACK + 1, what="the answer folded")
        answer.text += " and more"
        view.apply([Appended(answer, " and more")])
        answer.text, answer.streaming = "the final answer", False
        view.apply([Updated(answer)])
        await wait_for(pilot, lambda: drawn(app) == MAX_DRAWN, what="the answer's block gone")
        await pilot.pause()
        assert view.block("a0") is None and drawn(app) == MAX_DRAWN  # not drawn meanwhile

        await pilot.press("home")
        await wait_for(pilot, lambda: view.scroll_y == 0, what="the top")
        await pilot.click(FoldedMarker)  # the folded page: the answer and the oldest notices
        await wait_for(pilot, lambda: "the final answer" in screen_text(app), what="unfolded")
        assert view.folded == 0 and not app.query_one(FoldedMarker).display


async def test_a_stream_of_new_messages_folds_its_oldest_blocks_in_batches(
    wait_for: WaitFor,
) -> None:
    """Each removal of widgets holds the app's keys for a few turns of the loop: a flood of
    messages folds FOLD_SLACK + 1 blocks at a time, not one per new message."""
    app = TranscriptApp()
    async with app.run_test(size=(90, 20)) as pilot:
        view = app.transcript
        view.focus()
        for i in range(MAX_DRAWN + FOLD_SLACK):
            view.apply([Added(NoticeItem(f"n{i}", f"line {i}"))])
        await wait_for(pilot, lambda: drawn(app) == MAX_DRAWN + FOLD_SLACK, what="all drawn")
        assert view.folded == 0 and not app.query_one(FoldedMarker).display

        view.apply([Added(NoticeItem("last", "the newest line"))])
        await wait_for(pilot, lambda: drawn(app) == MAX_DRAWN, what="a batch folded")
        assert view.folded == FOLD_SLACK + 1
        await pilot.press("home")
        await wait_for(
            pilot, lambda: f"{FOLD_SLACK + 1} earlier items not drawn" in screen_text(app)
        )
        assert f"line {FOLD_SLACK + 1} " in screen_text(app)  # the oldest drawn
