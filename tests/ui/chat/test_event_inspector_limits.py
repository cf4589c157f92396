"""The event inspector keeps the latest events only, and says how many it let go: a run
stream that never ends cannot grow the app without bound."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from agent_tui.tui.chat.event_inspector import EventInspector
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


class InspectorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield EventInspector()

    @property
    def inspector(self) -> EventInspector:
        return self.query_one(EventInspector)


async def test_only_the_latest_events_are_kept_and_the_border_says_how_many_went(
    wait_for: WaitFor, tmp_path: Path
) -> None:
    app = InspectorApp()
    async with app.run_test(size=(100, 12)) as pilot:
        inspector = app.inspector
        inspector.max_records = 100
        for n in range(1_000):
            inspector.add(n / 1000, "messages", str(n), f'"token {n}"')
            if n % 100 == 0:
                await pilot.pause()
        await wait_for(pilot, lambda: inspector.shown_lines == len(inspector.records))
        assert len(inspector.records) <= 100
        assert inspector.records[-1].event_id == "999"
        first_kept = int(inspector.records[0].event_id or "")
        assert inspector.dropped == first_kept  # none lost in between
        # Still following the newest: the view scrolls to it after the last batch is painted.
        await wait_for(pilot, lambda: "999 ms messages" in screen_text(app))
        assert f"{inspector.dropped:,} earlier events not kept" in screen_text(app)

        # The event under the cursor stays under it while older ones go.
        inspector.focus()
        await pilot.press("end", "up")
        assert inspector.line_text(inspector.cursor or 0).endswith('"token 998"')
        for n in range(1_000, 1_050):
            inspector.add(n / 1000, "messages", str(n), f'"token {n}"')
        await pilot.pause()
        assert inspector.cursor is not None
        assert inspector.records[inspector.cursor].event_id == "998"

        # Data counts too: a few huge events push the small ones out.
        inspector.max_data_chars = 10_000
        inspector.add(2.0, "values", "big", "x" * 6_000)
        inspector.add(2.1, "values", "bigger", "y" * 6_000)
        assert [r.event_id for r in inspector.records] == ["bigger"]
        assert inspector.save(tmp_path / "events.jsonl") == 1

        inspector.clear()
        await pilot.pause()
        assert inspector.dropped == 0 and "not kept" not in screen_text(app)
