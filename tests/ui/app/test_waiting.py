"""The tests' `wait_for`: a condition that reads a widget a worker has not mounted yet
waits for it, as a user looks at the screen until it appears; one that never appears
fails naming what was waited for and what was missing."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from tests.support.screen import screen_text
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


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("name", "examples")

    def add(self, name: str) -> None:
        self.query_one(DataTable).add_row(name, "2")


async def test_a_row_in_the_table_is_on_the_screen_once_waited_for() -> None:
    # A DataTable lays out a row it was given when it is next idle: `row_count` holds
    # a moment before the row is drawn (CI read the screen in that moment).
    app = TableApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await wait_for(pilot, lambda: app.query_one(DataTable).row_count == 0)
        table = app.query_one(DataTable)
        for n in range(1, 4):
            app.add(f"cities-{n}")
            await wait_for(pilot, lambda: table.row_count == n)  # noqa: B023 (awaited here)
            assert f"cities-{n}" in screen_text(app)
