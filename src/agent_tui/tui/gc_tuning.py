"""Garbage collector settings for a long-lived, streaming UI.

A streamed answer allocates many short-lived objects (events, dicts, Rich segments) and
throws away many widget cycles (Markdown blocks re-parsed as text arrives: ~140,000
collected objects per 20,000 tokens), so CPython's collector runs often. What blocks the
app is the size of each collection, not their number (measured with
`benchmarks/chat_render.py`, see benchmarks/README.md):

- a full collection walks every object the process holds — Textual, pydantic models,
  loaded screens — for 100 to 500 ms. Freezing what exists once the app is up moves
  those long-lived objects out of the collector's sight, and a full collection is
  held back while a run streams (`streaming()`); it comes when the run has ended —
  or, for a stream that never ends, after `STREAMING_FULL_THRESHOLD` middle
  collections: cycles that outlive the young generations (each layout of the screen
  leaves thousands) are only freed by a full collection, and holding it back for
  good grew the app by 12 MB/s under a flood (`benchmarks/chat_flood.py`).
- a middle-generation collection walks everything that survived the young ones since
  the last one: with thresholds (7000, 20, …) that was 70 to 120 ms, five times per
  20,000 tokens. Collecting it every 3 young collections of 3,000 allocations keeps each
  under ~10 ms, for the same total time.

Cycles are still collected; only their scanning is spread out. Textual itself turns the
collector off during scroll animations for the same reason.

Counting allocations is not counting bytes: a stream of large chunks makes few
allocations and much garbage (Markdown widgets re-rendered, each with its parser), and
held back that way the app grew by 100 MB every 5 s (`benchmarks/endless_stream.py`).
So while a run streams the process's memory is watched too: once it grew by
`STREAMING_GROWTH_MB` since the last full collection, one runs at once. And memory a
collection frees stays with the process unless handed back (glibc keeps freed heap
pages): after a run that grew the process by `RELEASE_AFTER_GROWTH_MB`, the collection
held back is `release_memory()`, which hands it back; when a chat is left, `tui/memory_release.py` does,
the frozen objects included.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

THRESHOLDS = (3000, 3, 100)  # CPython's defaults: (700, 10, 10)
# The oldest generation's threshold while streaming: about 1.8 M net allocations
# (3000 x 3 x 200), more than a long answer makes, a few seconds of a flood.
STREAMING_FULL_THRESHOLD = 200

# Growth of the process's memory while streaming that brings a full collection at once.
STREAMING_GROWTH_MB = 64
RELEASE_DELAY_S = 1.0  # after a run's end or a chat's unmount, time for what it frees
# Growth of the process's memory since the last release that makes a run's end release.
RELEASE_AFTER_GROWTH_MB = 16
# While the screen catches up with a run that ended (`catching_up()`: the text still being
# drawn), its full collection waits, checked this often, this long at most.
CATCH_UP_CHECK_S = 0.1
CATCH_UP_MOST_S = 10.0

_streams = 0  # runs streaming now (several thread views may each follow one)
_catching_up = 0  # work the screen still does for what streamed (the text being drawn)
_full_threshold = THRESHOLDS[2]  # what `streaming()` puts back


def resume_after_startup() -> None:
    """The collector back on, if the command line held it off for the start-up
    (`cli.main`: what is imported and built then lives as long as the app). What was
    allocated meanwhile is frozen first, else the first young collection would walk it
    all (hundreds of thousands of objects); `tune_for_streaming` collects it."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def tune_for_streaming() -> None:
    """Collect everything (what start-up froze too), freeze what is alive now and space
    collections out; safe to call again. First, what lives as long as the app but was
    left to its first use: the validator of a thread's checkpoints (a thread opened next
    would build it before its first rows show; built now, it is frozen with the rest)."""
    global _full_threshold
    from agent_tui.client.models import build_thread_state

    build_thread_state()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    young, middle, _full_threshold = THRESHOLDS
    gc.set_threshold(young, middle, STREAMING_FULL_THRESHOLD if _streams else _full_threshold)


@contextmanager
def streaming() -> Iterator[None]:
    """While inside, full collections are held back (young ones still run), to one per
    `STREAMING_FULL_THRESHOLD` middle collections. When the last stream ends, the collection
    that was held back runs once the screen caught up (`after_streams`): a full
    collection walks every object the app holds (0.1 s, and 1 s on a busy machine), and
    two came right after a long answer, while its end was still being drawn — one when
    the threshold was put back, one for the memory handed back."""
    global _streams, _full_threshold
    if _streams == 0:
        young, middle, _full_threshold = gc.get_threshold()
        gc.set_threshold(young, middle, max(STREAMING_FULL_THRESHOLD, _full_threshold))
        _watch.start()
    _streams += 1
    try:
        yield
    finally:
        _streams -= 1
        if _streams == 0:
            _watch.stop()
            try:
                asyncio.get_running_loop().call_later(RELEASE_DELAY_S, after_streams)
            except RuntimeError:  # no loop to wait in: at once
                after_streams(waited=CATCH_UP_MOST_S)


@contextmanager
def catching_up() -> Iterator[None]:
    """While inside, the screen still shows what streamed (a text drawn in slices): the
    full collection after a run waits (`CATCH_UP_MOST_S` at most)."""
    global _catching_up
    _catching_up += 1
    try:
        yield
    finally:
        _catching_up -= 1


def after_streams(waited: float = 0.0) -> None:
    """After the last run streamed: once the screen caught up, the oldest generation's
    threshold back, and one full collection — `release_if_grown()`'s, which hands the
    memory back too, or else the one held back, at the next young collection."""
    if _streams:
        return  # another run streams: its end will do it
    if _catching_up and waited < CATCH_UP_MOST_S:
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
            loop.call_later(CATCH_UP_CHECK_S, after_streams, waited + CATCH_UP_CHECK_S)
            return
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _full_threshold)
    if _in_a_loop():
        release_if_grown()


def _in_a_loop() -> bool:
    """Whether this thread runs an event loop (an app's)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def resident_mb() -> float | None:
    """The process's resident memory in MB (None where /proc does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _malloc_trim() -> Callable[[int], Any] | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None)  # glibc only
    except OSError:
        return None


_trim = _malloc_trim()


_released_at: list[float] = []  # resident MB after the last `release_memory()`


def trim_heap() -> None:
    """Hand the heap pages freed so far back to the system (`malloc_trim(0)` on glibc,
    nothing elsewhere), without a collection: for big objects that reference counting
    freed (a history page's states let go). A few milliseconds."""
    if _trim is not None:
        _trim(0)


def release_memory() -> None:
    """Collect everything, then hand the freed heap pages back to the system."""
    gc.collect()
    if _trim is not None:
        _trim(0)
    _released_at[:] = [mb] if (mb := resident_mb()) is not None else []


def release_if_grown() -> None:
    """`release_memory()` when the process grew by `RELEASE_AFTER_GROWTH_MB` since the
    last one (or there was none): a long answer's garbage is collected and handed back,
    while a short turn's is left to the collector's own rhythm — a full collection walks
    every object the app holds, a pause of 0.1-0.5 s after every run otherwise."""
    now = resident_mb()
    if now is None or not _released_at or now - _released_at[0] >= RELEASE_AFTER_GROWTH_MB:
        release_memory()


class _GrowthWatch:
    """While runs stream: a full collection once memory grew by `STREAMING_GROWTH_MB`
    since the last one (checked after each middle collection: reading /proc is cheap)."""

    def __init__(self) -> None:
        self._since: float | None = None  # resident MB after the last full collection
        self._pending = False

    def start(self) -> None:
        self._since = resident_mb()
        if self._since is not None and self._after not in gc.callbacks:
            gc.callbacks.append(self._after)

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._after)

    def _after(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation", 0) < 1:
            return
        now = resident_mb()
        if now is None or self._since is None:
            return
        if info.get("generation") == 2:
            self._since, self._pending = now, False
        elif now - self._since > STREAMING_GROWTH_MB and not self._pending:
            # Not from inside the collector: from the event loop, as soon as it can.
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_soon(self._collect)
                self._pending = True

    def _collect(self) -> None:
        self._pending = False
        release_memory()


_watch = _GrowthWatch()
