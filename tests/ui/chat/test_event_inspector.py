"""The raw event inspector: every SSE event shown with its timing and saved whole."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult

from agent_tui.tui.chat.event_inspector import EventInspector, EventRecord
from tests.support.screen import painted_control_codes, screen_text
from tests.support.waiting import WaitFor

HOSTILE = (
    "[@click=app.quit]q[/] \x1b]8;;file:///etc/passwd\x1b\\x\x1b]8;;\x1b\\ \x1b[2J [bold red]x[/]"
)


class InspectorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield EventInspector()

    @property
    def inspector(self) -> EventInspector:
        return self.query_one(EventInspector)


async def test_events_show_with_time_name_id_and_inert_data(wait_for: WaitFor) -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 10)) as pilot:
        app.inspector.add(0.0123, "metadata", "1", '{"run_id": "r1"}')
        app.inspector.add(0.5, "messages|sub:1", None, HOSTILE)
        app.inspector.add(0.75, "values", "3", "x" * 5000)
        await wait_for(pilot, lambda: app.inspector.shown_lines == 3)
        await pilot.pause()
        shown = screen_text(app)
        assert "12 ms metadata" in shown and '{"run_id": "r1"}' in shown
        assert "500 ms messages|sub:1" in shown
        assert "[@click=app.quit]q[/] x  [bold red]x[/]" in shown
        assert painted_control_codes(app) == []
        assert app.inspector.line_text(2).endswith(" 3 " + "x" * 239 + "…")  # one truncated line


async def test_twenty_thousand_events_stay_responsive_and_save_whole(
    wait_for: WaitFor, tmp_path: Path
) -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 20)) as pilot:
        for n in range(20_000):
            app.inspector.add(n / 1000, "messages", str(n), f'[{{"content": "token {n}"}}]')
            if n % 500 == 0:
                await pilot.pause()  # the stream arrives in bursts
        await wait_for(pilot, lambda: app.inspector.shown_lines == 20_000, what="every line")
        # One widget draws only the lines in view, however many events came (how fast it
        # takes them is measured by the `pane` stack of benchmarks/chat_render.py).
        assert not app.inspector.children
        await wait_for(pilot, lambda: "19999 ms messages" in screen_text(app), what="the end")
        await pilot.press("home")  # keys still answer: the first event is back in view
        await wait_for(pilot, lambda: " 0 ms messages" in screen_text(app), what="the start")
        await pilot.press("end")
        await wait_for(pilot, lambda: "19999 ms messages" in screen_text(app), what="the end")

        path = tmp_path / "run-events.jsonl"
        app.inspector.add(20.5, "error", None, HOSTILE)
        assert app.inspector.save(path) == 20_001
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 20_001
        assert json.loads(lines[0]) == {
            "t_ms": 0.0,
            "event": "messages",
            "id": "0",
            "data": '[{"content": "token 0"}]',
        }
        assert json.loads(lines[-1])["data"] == HOSTILE  # whole, as received
        assert "\x1b" not in path.read_text(encoding="utf-8")  # escaped in the file
        assert path.stat().st_mode & 0o777 == 0o600

        app.inspector.clear()
        await pilot.pause()
        assert app.inspector.records == [] and app.inspector.shown_lines == 0
        assert "messages" not in screen_text(app)


async def test_the_cursor_walks_the_events_and_enter_opens_one_whole(wait_for: WaitFor) -> None:
    opened: list[EventRecord] = []

    class OpeningApp(InspectorApp):
        def on_event_inspector_opened(self, message: EventInspector.Opened) -> None:
            opened.append(message.record)

    app = OpeningApp()
    async with app.run_test(size=(80, 8)) as pilot:
        long_data = json.dumps({"content": "x" * 1000, "note": HOSTILE})
        for n in range(30):
            app.inspector.add(n / 100, "messages", str(n), long_data if n == 3 else f'"{n}"')
        await wait_for(pilot, lambda: app.inspector.shown_lines == 30)
        app.inspector.focus()
        await pilot.press("enter")  # no cursor yet: the newest event
        assert opened[-1].event_id == "29" and app.inspector.cursor == 29
        await pilot.press("home", "down", "down", "down")
        assert app.inspector.cursor == 3 and app.inspector.scroll_y == 0
        await pilot.press("enter")
        whole = opened[-1].as_value()
        assert whole["data"] == {"content": "x" * 1000, "note": HOSTILE}  # not cut at 240
        assert whole["event"] == "messages" and whole["id"] == "3"
        await pilot.press("end")
        assert app.inspector.cursor == 29
        assert app.inspector.scroll_y == app.inspector.max_scroll_y  # the cursor in view
        await pilot.press("pageup")
        assert app.inspector.cursor == 9
        app.inspector.clear()
        assert app.inspector.cursor is None
