"""`KeysFooter` shows the screen's keys as Textual's footer does, follows them when they
change, and keeps the keys it shows when the focus moves without changing them."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Footer
from textual.widgets._footer import FooterKey

from agent_tui.tui.widgets.footer import KeysFooter
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


class KeysApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "fork", "Fork"),
        Binding("p", "replay", "Run from here"),
        Binding("x", "cancel", "Cancel run"),
    ]

    def __init__(self, footer: Footer) -> None:
        super().__init__()
        self.footer = footer
        self.running = False
        self.forks = 0

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield self.footer

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.running if action == "cancel" else True

    def action_fork(self) -> None:
        self.forks += 1

    def action_replay(self) -> None: ...

    def action_cancel(self) -> None: ...


def footer_line(app: App[None]) -> str:
    return screen_text(app).splitlines()[-1]


async def test_the_footer_shows_what_textuals_shows_and_follows_the_keys(
    wait_for: WaitFor,
) -> None:
    async def shown(footer: Footer) -> tuple[str, str]:
        """The footer's line, then once a run brought its key."""
        app = KeysApp(footer)
        async with app.run_test(size=(80, 6)) as pilot:
            await wait_for(pilot, lambda: "Fork" in footer_line(app), what="the keys")
            before = footer_line(app)
            assert "Cancel run" not in before
            app.running = True  # a key comes with the run
            app.refresh_bindings()
            await wait_for(pilot, lambda: "Cancel run" in footer_line(app), what="the new key")
            await pilot.press("f")  # the keys still work
            assert app.forks == 1
            return before, footer_line(app)

    assert await shown(KeysFooter()) == await shown(Footer())


async def test_moving_the_focus_keeps_the_keys_shown(wait_for: WaitFor) -> None:
    app = KeysApp(KeysFooter())
    async with app.run_test(size=(80, 6)) as pilot:
        await wait_for(pilot, lambda: "Fork" in footer_line(app), what="the keys")
        keys = list(app.query(FooterKey))
        await pilot.press("tab")  # the focus moves: the same keys
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "one"
        assert list(app.query(FooterKey)) == keys  # not built again
        assert "Fork" in footer_line(app) and "Run from here" in footer_line(app)
