"""Runs start at once: a request that creates a run wakes the runtime's queue when its
answer starts (the queue would otherwise find the run at its next poll, up to 0.5 s later;
`upstream.wake_queue_on`). Latency only: nothing here keeps data."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class Wakeup:
    """An event the queue's idle wait ends on (set from the server's loop)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.event.wait(), timeout)
        self.event.clear()

    def set(self) -> None:
        self.event.set()


WAKEUP = Wakeup()


def creates_run(method: str, path: str) -> bool:
    parts = path.strip("/").split("/")
    return method == "POST" and "runs" in parts and parts[-1] != "crons"


class WakeOnRun:
    """ASGI middleware: `WAKEUP` is set when the answer to a request that creates a run
    starts (the run is in the queue by then). ``--volatile`` (benchmarks) has it too, so the
    two compare the saving alone."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not creates_run(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return

        async def wake_on_answer(message: Any) -> None:
            if message["type"] == "http.response.start":
                WAKEUP.set()
            await send(message)

        await self.app(scope, receive, wake_on_answer)
