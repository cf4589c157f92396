"""How a resource screen and the key help look (fixed data: stable run to run)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.shell import Item, ListScreen, ShellHarness
from tests.support.snapshots import steady_cursors
from tests.support.waiting import workers_done

ITEMS = [
    Item("5f0c0000-0000-4000-8000-000000000001", "support bot", "idle"),
    Item("5f0c0000-0000-4000-8000-000000000002", "triage", "busy"),
    Item("5f0c0000-0000-4000-8000-000000000003", "needs a human", "interrupted"),
    Item("5f0c0000-0000-4000-8000-000000000004", "[bold]not bold[/bold]", "error"),
]


def harness() -> ShellHarness:
    app = ShellHarness(ListScreen(list(ITEMS)))
    app.connection_status = "connected · http://agent.test"
    return app


async def loaded(pilot: Any) -> None:
    await workers_done(pilot.app)
    await pilot.pause()


def test_resource_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    assert snap_compare(harness(), terminal_size=(100, 16), run_before=loaded)


def test_help_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def open_help(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(harness(), terminal_size=(100, 34), run_before=open_help)


def test_command_mode_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def type_command(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("colon", "t")
        steady_cursors(pilot.app)
        await pilot.pause()

    assert snap_compare(harness(), terminal_size=(100, 16), run_before=type_command)
