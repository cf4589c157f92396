"""Memory given back once a big screen is left: everything it held collected, even what
the app froze, and the freed heap handed back to the system.

Once connected the app freezes everything alive (`gc_tuning.tune_for_streaming`: the
collector never walks it again, so no full collection pauses a stream). A frozen object
lives in the collector's permanent generation: it is freed only when no reference to it
is left at all, never as part of a cycle, and `gc.get_referrers` does not see it. Screens
and widgets are full of cycles (parent and children, styles and their node, timers and
their callbacks, bound methods in helpers), so a screen that was alive at such a moment
stays in memory for good once it is left, with all it holds — the start-up screen that a
connect replaces, or a thread view whose chat streamed for minutes (in
`benchmarks/endless_stream.py`, which tunes the collector with the view open: 300,000
objects and 30 MB, and nothing pointed at them that `gc.get_referrers` could see).

So when a chat is left (its transcript unmounts), a second later: asyncio is made to
drop its cancelled timers (each keeps the context it was made in, which names the worker
and so the screen that made a request, until its deadline: see `_retry_after`), the
frozen generation is thawed, every generation collected, what is still alive frozen
again, and the heap pages freed handed back (`gc_tuning.release_memory`: `malloc_trim(0)`
on glibc, nothing elsewhere). That is one full collection, 0.15 to 0.6 s on a loaded
2-core machine, when the user has just left the chat, not while anything streams in it;
it is done again after the request timers' deadlines only if the chat is still alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import logging
import time
import weakref
from typing import TYPE_CHECKING

from agent_tui.tui.gc_tuning import release_memory

if TYPE_CHECKING:
    from textual.widget import Widget

logger = logging.getLogger(__name__)


LEFT_RELEASE_DELAY_S = 1.0  # after an unmount: time for the screen to finish closing
DEADLINE_MARGIN_S = 2.0  # after a request timer's deadline
# Cancelled timers added so that asyncio drops every cancelled one (more than the timers
# the app has scheduled: a few dozen).
CANCELLED_TIMERS = 1_000


def release_everything() -> float:
    """Collect every generation, the frozen one too, freeze again what is still alive,
    and hand the freed heap back; the seconds it took."""
    started = time.perf_counter()
    _clear_style_memo()
    frozen = gc.get_freeze_count() > 0
    if frozen:
        gc.unfreeze()
    try:
        release_memory()
    finally:
        if frozen:
            gc.freeze()
    took = time.perf_counter() - started
    logger.debug("memory released in %.3f s", took)
    return took


def _clear_style_memo() -> None:
    """Textual (8.2) memoizes `StylesCache.get_inner_outer` with `lru_cache` on the
    method, so the memo's keys hold the style caches of the last 1,024 widgets that drew
    a line, with every line they drew, long after the widgets are gone: after a long chat
    is left, 150,000 objects (strips, segments and their caches) and the Python arenas
    they keep from going back. Emptied, it fills again from the widgets on screen."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:
        return
    clear = getattr(getattr(StylesCache, "get_inner_outer", None), "cache_clear", None)
    if callable(clear):
        clear()


def release_when_gone(left: Widget) -> None:
    """`release_everything()` soon, from the running event loop (if any), and again
    while `left` (the widget being unmounted) is still alive when the timers of the
    requests its screen made have run out (see `_retry_after`) — while its app runs: an
    app that has stopped frees everything when its process ends (and a test process,
    which runs app after app on one loop, would pay for each again and again)."""
    with contextlib.suppress(RuntimeError):
        loop = asyncio.get_running_loop()
        gone = weakref.ref(left)
        app = weakref.ref(left.app)
        retries = _retry_after()

        def attempt() -> None:
            if (running := app()) is None or not running.is_running:
                return
            _drop_cancelled_timers(loop)
            # At the loop's next turn: the cancelled timers are gone then.
            loop.call_soon(release, context=contextvars.Context())

        def release() -> None:
            release_everything()
            if gone() is not None and retries:
                loop.call_later(retries.pop(0), attempt, context=contextvars.Context())

        # In a context of its own: the one current here names the widget being unmounted
        # (`textual.message_pump.active_message_pump`), and a timer keeps its context.
        loop.call_later(LEFT_RELEASE_DELAY_S, attempt, context=contextvars.Context())


def _drop_cancelled_timers(loop: asyncio.AbstractEventLoop) -> None:
    """Have asyncio drop the timers that were cancelled (the timeouts of requests that
    ended), with the contexts they hold, now rather than at their deadlines: it drops
    them all at its next turn once they are over half of more than 100 timers, so this
    adds as many cancelled ones as that takes (cheap objects, dropped with the rest)."""
    for _ in range(CANCELLED_TIMERS):
        loop.call_later(3600, _nothing, context=contextvars.Context()).cancel()


def _nothing() -> None:
    """What the timers `_drop_cancelled_timers` cancels would have run."""


def _retry_after() -> list[float]:
    """Seconds between the releases after the first. A request's timeout is an asyncio
    timer; the request done, the timer is cancelled but the loop keeps it, with the
    context it was made in, until its deadline — and that context names the worker
    (`textual.worker.active_worker`) and so the screen that ran it. A screen left
    while (or just after) it loaded something stays alive until then: at most the
    client's read timeout (a stream's is longer)."""
    from agent_tui.client.timeouts import DEFAULT_TIMEOUT, STREAM_TIMEOUT

    read, stream = DEFAULT_TIMEOUT.read or 0.0, STREAM_TIMEOUT.read or 0.0
    first = read + DEADLINE_MARGIN_S - LEFT_RELEASE_DELAY_S
    return [first, stream - read] if stream > read else [first]
