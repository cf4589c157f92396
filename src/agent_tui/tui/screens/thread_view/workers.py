"""Workers of the thread view's parts, started on the screen.

The parts are plain objects, not widgets, so a `@work` method cannot live on them. Their
workers run on the screen instead: `AgentScreen` forwards a worker's failure to the app, and
an exclusive group cancels the screen's previous worker of that group, as `@work` does.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from textual.screen import Screen


def start(
    screen: Screen[Any], group: str, work: Callable[..., Awaitable[None]], *args: Any
) -> None:
    """Run `work(*args)` as the screen's one worker of `group` (cancelling the last one)."""
    screen.run_worker(
        partial(work, *args),
        name=group,
        group=group,
        exclusive=True,
        exit_on_error=False,
    )
