"""Waiting on a Pilot app's own progress, never on fixed sleeps.

`wait_for(pilot, condition)` lets the app's workers and messages run until `condition()`
holds, or fails after a timeout naming `what` it waited for. UI tests get it from the
`wait_for` fixture (tests/ui/conftest.py) and type it `WaitFor`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from textual.app import App, ScreenStackError
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

ScreenT = TypeVar("ScreenT", bound=Screen[Any])


class WaitFor(Protocol):
    """The `wait_for` fixture: `wait_for` below."""

    async def __call__(
        self,
        pilot: Pilot[Any],
        condition: Callable[[], bool],
        *,
        timeout: float = 60.0,
        what: str = "condition",
        workers: bool = True,
    ) -> None: ...


async def wait_for(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    *,
    timeout: float = 60.0,
    what: str = "condition",
    workers: bool = True,
) -> None:
    """Let workers and messages run until `condition()` holds, or fail after `timeout`.

    `workers=False` does not wait for running workers to finish between checks: for
    watching what the app shows while a worker is still busy. A condition that queries
    a widget not mounted yet (`NoMatches`: a screen pushed by a worker composes a moment
    later) is not met yet, rather than an error; at the timeout that error is shown. And
    a condition met while the screen on top has not mounted its widgets yet (a screen is
    on top a moment before it composed them) waits for them: what the test reads next
    exists. Once it holds, the screen is brought up to date (`settle`): what a widget
    draws when it is next idle (a table's new rows) is on the screen the test reads.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    while not (_holds(condition) and _screen_ready(app)):
        if time.monotonic() > deadline:
            try:
                condition()
            except NoMatches as missing:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}: {missing}"
                ) from missing
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        # Polls a condition, bounded by the deadline: the short pause only keeps this
        # loop from spinning while a subprocess or the network is busy.
        if workers:
            await workers_done(app)
        await pilot.pause(0.02)
    if workers:
        await settle(pilot)


async def settle(pilot: Pilot[Any]) -> None:
    """Until every widget of the screen has handled what was sent to it, run its idle
    work (a DataTable lays out rows added since) and the screen has been updated: a
    condition read from a widget's data holds a moment before that data is drawn."""
    if pilot.app.screen_stack:  # none once the app has ended: nothing to draw
        await pilot.pause()


def _screen_ready(app: App[Any]) -> bool:
    """The screen on top has mounted its widgets (or there is none: the app ended)."""
    try:
        return app.screen.is_mounted
    except ScreenStackError:
        return True


def _holds(condition: Callable[[], bool]) -> bool:
    try:
        return condition()
    except NoMatches:  # what it reads is not mounted yet
        return False


async def screen_shown(
    pilot: Pilot[Any],
    kind: type[ScreenT],
    *,
    timeout: float = 60.0,
    what: str | None = None,
    workers: bool = True,
) -> ScreenT:
    """Wait until the active screen is a `kind` with its widgets mounted, and return it.

    A screen a worker or a callback pushes is the active one a moment before it has
    composed its widgets: a query on it then finds nothing (`NoMatches`)."""

    def shown() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, kind) and screen.is_mounted

    await wait_for(
        pilot, shown, timeout=timeout, what=what or f"the {kind.__name__}", workers=workers
    )
    screen = pilot.app.screen
    assert isinstance(screen, kind)
    return screen


async def workers_done(app: App[Any]) -> None:
    """Until the app's running workers are done. A worker cancelled meanwhile is done
    too: Textual's `wait_for_complete` raises `WorkerCancelled` for it, and the app
    cancels workers on purpose (a newer load replacing an exclusive one, a screen left)."""
    while True:
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            # The others may still be running; the cancelled one leaves the app's list
            # at the loop's next turn.
            await asyncio.sleep(0)
            continue
        return


async def wait_in_flood(
    condition: Callable[[], bool], *, what: str, timeout: float = 60.0, every: float = 0.05
) -> None:
    """Poll `condition` in the running loop until it holds, or fail after `timeout`: for
    an app that a stream never ends keeps busy (`wait_for`'s pauses wait for an idle
    screen, which it never becomes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(every)


async def press_in_flood(app: App[Any], *keys: str) -> None:
    """Press `keys` as the terminal would, without waiting for an idle screen (which an
    app flooded by a stream may not become for longer than Pilot waits)."""
    for key in keys:
        app.simulate_key(key)
        await asyncio.sleep(0)
