"""Calls run in order on one thread of their own, off the event loop; the calls
made while that thread is busy go there together, in one hop.

A hop to another thread and back costs a few tens of microseconds on a quiet machine and
much more on a busy one (the thread waits for a core, then the loop does): a short run
makes about fifteen checkpoint calls, several at once, and eight runs at a time many more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

Outcome = tuple[bool, Any]
"""``(True, result)`` or ``(False, exception)``."""
Batch = list[tuple[Callable[[], Any], asyncio.Future[Any]]]
"""Calls and their callers' futures."""


class OneThread:
    """Used from one event loop; the queue is touched only on that loop's thread."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._queue: Batch = []
        self._busy = False

    async def run(self, call: Callable[[], T]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.append((call, future))
        if not self._busy:
            self._send()
        return await future

    def _send(self) -> None:
        batch, self._queue = self._queue, []
        self._busy = True
        done = asyncio.wrap_future(self._executor.submit(_run_all, [c for c, _ in batch]))
        done.add_done_callback(lambda finished: self._answer(batch, finished))

    def _answer(self, batch: Batch, finished: asyncio.Future[list[Outcome]]) -> None:
        """``finished`` holds an outcome per call: `_run_all` catches what a call raises,
        and nothing cancels it (``shutdown`` lets the calls sent run)."""
        self._busy = False
        for (_, future), (ok, value) in zip(batch, finished.result(), strict=True):
            if not future.done():  # done: its caller was cancelled, nobody reads it
                (future.set_result if ok else future.set_exception)(value)
        if self._queue:
            self._send()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False)


def _run_all(calls: list[Callable[[], Any]]) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for call in calls:
        try:
            outcomes.append((True, call()))
        except BaseException as exc:  # handed to its caller, as an executor would
            outcomes.append((False, exc))
    return outcomes
