"""Garbage-collection pauses of a test process, written down when they are long.

Set ``AGENT_TUI_GC_LOG`` to a file: each collection that takes longer than
``AGENT_TUI_GC_LOG_OVER`` seconds (0.2 unless set) is appended to it with the process, the
generation, the objects it found and the test that was running. A pause of the test
process's event loop longer than a connect timeout reads as a server that did not answer.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

_started: list[float] = []
_explicit: list[str] = []
current_test = ["(between tests)"]


def install() -> None:
    path = os.environ.get("AGENT_TUI_GC_LOG")
    if not path:
        return
    over = float(os.environ.get("AGENT_TUI_GC_LOG_OVER", "0.2"))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            _started[:] = [time.perf_counter()]
            return
        if not _started:
            return
        took = time.perf_counter() - _started[0]
        if took >= over:
            cpu = time.process_time()
            with open(path, "a") as log:
                log.write(
                    f"{time.strftime('%H:%M:%S')} {worker} gen{info['generation']} "
                    f"{took:.2f}s collected={info['collected']} "
                    f"objects={len(gc.get_objects())} frozen={gc.get_freeze_count()} cpu={cpu:.0f}s "
                    f"by={_explicit[0] if _explicit else 'threshold'} {current_test[0]}\n"
                )

    gc.callbacks.append(timed)
    collect = gc.collect

    def asked(generation: int = 2) -> int:
        caller = sys._getframe(1)
        _explicit[:] = [f"{caller.f_code.co_filename.rsplit('/', 1)[-1]}:{caller.f_code.co_name}"]
        try:
            return collect(generation)
        finally:
            _explicit.clear()

    gc.collect = asked
