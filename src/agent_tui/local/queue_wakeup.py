"""Start runs as soon as they are created in the in-memory runtime, not up to a second later.

The in-memory queue (langgraph-runtime-inmem 0.36.7, also under ``langgraph dev``) looks
for pending runs, then sleeps 0.5 s when it found none, and only takes runs created before
it went to sleep. So every run waits 0.5-1 s before its first event: a pause before each
answer in the chat pane, and in every test. Polling faster would cost CPU in proportion to
the number of runs kept, since each look scans them all.

Instead, creating a run wakes the queue: ``Runs.put`` sets an event that ``Runs.next``
waits on, for at most the original 0.5 s (runs that become ready without a ``put``, like
the next queued run on a thread, are still found by that poll). Both are private
functions of a pinned dependency, so the change is applied only when their signatures are
the expected ones, and only in the server process.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

logger = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 0.5  # the runtime's own sleep, kept as the upper bound


class _Wakeup:
    """An asyncio event that other threads' event loops may set safely."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    async def wait(self, timeout: float) -> None:
        self._loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)
        self._event.clear()  # before the scan, so a run put during the scan wakes us again

    def set(self) -> None:
        loop = self._loop
        if loop is None:
            return  # the queue has not waited yet: its first look comes without a sleep
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._event.set()
        else:
            loop.call_soon_threadsafe(self._event.set)


def wake_queue_on_new_runs() -> bool:
    """Patch the in-memory runtime's ``Runs``; return whether it was patched."""
    from langgraph_runtime_inmem.ops import Runs

    original_next = Runs.next
    original_put = Runs.put
    if list(inspect.signature(original_next).parameters) != ["wait", "limit"] or not (
        inspect.iscoroutinefunction(original_put)
    ):
        logger.warning("langgraph-runtime-inmem changed: runs start on its own 0.5 s poll")
        return False

    wakeup = _Wakeup()

    async def next_run(wait: bool, limit: int = 1) -> AsyncIterator[Any]:
        if wait:
            await wakeup.wait(IDLE_POLL_SECONDS)
        async for item in original_next(False, limit):
            yield item

    async def put(*args: Any, **kwargs: Any) -> Any:
        created = await original_put(*args, **kwargs)
        wakeup.set()
        return created

    Runs.next = staticmethod(next_run)
    Runs.put = staticmethod(put)
    return True
