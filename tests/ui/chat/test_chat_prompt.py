"""The chat prompt: enter sends, ctrl+j adds a line, up/down browse what was sent."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Footer

from agent_tui.tui.chat.prompt import PLACEHOLDER, PromptArea
from tests.support.waiting import WaitFor


class PromptApp(App[None]):
    def __init__(self, history: list[str] | None = None) -> None:
        super().__init__()
        self.sent: list[str] = []
        self._history = history

    def compose(self) -> ComposeResult:
        yield PromptArea(history=self._history)
        yield Footer()

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        self.sent.append(message.text)


async def test_enter_sends_without_clearing_and_ctrl_j_adds_a_line(wait_for: WaitFor) -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        assert app.prompt.has_focus and app.prompt.placeholder == PLACEHOLDER
        await pilot.press(*"first", "ctrl+j", *"second", "shift+enter", *"third")
        assert app.prompt.text == "first\nsecond\nthird"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.sent == ["first\nsecond\nthird"])
        # The draft stays until the owner accepts it (a failed send loses nothing).
        assert app.prompt.text == "first\nsecond\nthird"
        app.prompt.accept()
        assert app.prompt.text == "" and app.prompt.input_history == ["first\nsecond\nthird"]


async def test_keys_arriving_in_one_burst_are_sent_whole_and_in_order(wait_for: WaitFor) -> None:
    # A terminal delivers a fast typist's (or a laggy link's) keys in one read: the
    # app sees `enter` before the prompt has inserted the letters queued ahead of it.
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst = [*"ab", "ctrl+j", *"cd", "enter"]
        for key in burst:
            character = {"ctrl+j": "\n", "enter": "\r"}.get(key, key)
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: app.sent == ["ab\ncd"], what="the whole burst sent")
        assert app.prompt.text == "ab\ncd"


async def test_empty_or_blank_text_is_not_sent() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("enter", "space", "ctrl+j", "space", "enter")
        await pilot.pause()
        assert app.sent == []


async def test_the_footer_names_send_and_newline() -> None:
    app = PromptApp()
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        keys = {b.id: b.description for _, b, enabled, _ in app.active_bindings.values()}
        assert keys.get("prompt.send") == "Send"
        assert keys.get("prompt.newline") == "Newline"


async def test_up_and_down_browse_history_and_bring_back_the_draft(wait_for: WaitFor) -> None:
    app = PromptApp(history=["one", "two\nlines"])
    async with app.run_test() as pilot:
        await pilot.press(*"my draft")
        await pilot.press("up")
        assert app.prompt.text == "two\nlines"
        await pilot.press("up")
        assert app.prompt.text == "one"
        await pilot.press("up")  # the oldest: stays
        assert app.prompt.text == "one"
        await pilot.press("down")
        assert app.prompt.text == "two\nlines"
        assert app.prompt.cursor_location == (1, 5)  # on the last line: down browses on
        await pilot.press("down")
        assert app.prompt.text == "my draft"
        await pilot.press("down")  # past the draft: an ordinary cursor move
        assert app.prompt.text == "my draft"

        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: app.sent == ["two\nlines"])
        app.prompt.accept()
        assert app.prompt.input_history == ["one", "two\nlines"]  # no duplicate of the last


async def test_up_inside_a_multi_line_draft_moves_the_cursor_not_the_history() -> None:
    app = PromptApp(history=["old"])
    async with app.run_test() as pilot:
        await pilot.press(*"a", "ctrl+j", *"b")
        await pilot.press("up")
        assert app.prompt.text == "a\nb" and app.prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert app.prompt.text == "old"
