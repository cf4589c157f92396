"""Helpers for SVG snapshots: what must hold still before the picture is taken, and the
shell over the fixed agent server (tests.support.fixed_servers) that the modal and screen
pictures open their screens in."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from agent_tui.client import AgentServerClient
from tests.support.fixed_servers import agent_server
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor, workers_done


def steady_cursors(app: App[Any]) -> None:
    """Text cursors blink every half second, on every screen of the stack: held still,
    the picture no longer depends on the moment it is taken (under load a snapshot came
    out with the cursor off)."""
    for screen in app.screen_stack:
        for field in [*screen.query(Input), *screen.query(TextArea)]:
            field.cursor_blink = False
        for area in screen.query(TextArea):
            # Its drawn lines are cached by a key that, with the blink off, no longer
            # says whether the field has the focus: a cursor line drawn before the focus
            # came (under load, the form's first paint) was shown without its cursor.
            area.notify_style_update()


async def repainted(app: App[Any]) -> None:
    """Until the screen has been painted with what changed so far (a field's focus
    draws its cursor line a paint after the focus itself)."""
    done = asyncio.Event()
    app.screen.call_after_refresh(done.set)
    app.screen.refresh()
    await asyncio.wait_for(done.wait(), 60)


async def settled(pilot: Any) -> None:
    """Every worker done and every message handled, twice: what a finished load starts
    (a second page, a redraw) has finished too."""
    for _ in range(2):
        await workers_done(pilot.app)
        await pilot.pause()


Check = Callable[[], bool]


def harness() -> ShellHarness:
    """The shell, connected to `agent_server` (fixed data), on no screen of its own yet."""
    client = AgentServerClient("http://agent.test", http_transport=agent_server())
    app = ShellHarness()
    app.client = client
    app.connection_status = "connected · http://agent.test"
    return app


def showing(pilot: Pilot[Any], name: str) -> bool:
    """The screen on top is the class called `name`."""
    return type(pilot.app.screen).__name__ == name


async def shown(pilot: Pilot[Any], wait_for: WaitFor, check: Check, what: str) -> None:
    """Until the screen shows what `check` checks, then the last paint, cursors still."""
    await wait_for(pilot, check, what=what)
    steady_cursors(pilot.app)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
