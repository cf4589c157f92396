"""The tests' `wait_for`: a condition that reads a widget a worker has not mounted yet
waits for it, as a user looks at the screen until it appears; one that never appears
fails naming what was waited for and what was missing."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.support.waiting import wait_for


class LateApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("first", id="first")

    def on_mount(self) -> None:
        self.set_timer(0.2, lambda: self.mount(Static("late", id="late")))


async def test_a_widget_mounted_later_is_waited_for() -> None:
    app = LateApp()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.query_one("#late", Static).visual is not None)
        assert str(app.query_one("#late", Static).render()) == "late"


async def test_a_widget_that_never_comes_fails_naming_it() -> None:
    app = LateApp()
    async with app.run_test() as pilot:
        with pytest.raises(AssertionError, match=r"the missing pane: .*#never"):
            await wait_for(
                pilot,
                lambda: app.query_one("#never") is not None,
                timeout=0.5,
                what="the missing pane",
            )
