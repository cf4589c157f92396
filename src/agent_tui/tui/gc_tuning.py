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
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (3000, 3, 100)  # CPython's defaults: (700, 10, 10)
# The oldest generation's threshold while streaming: about 1.8 M net allocations
# (3000 x 3 x 200), more than a long answer makes, a few seconds of a flood.
STREAMING_FULL_THRESHOLD = 200

_streams = 0  # runs streaming now (several thread views may each follow one)
_full_threshold = THRESHOLDS[2]  # what `streaming()` puts back


def tune_for_streaming() -> None:
    """Freeze everything alive now and space collections out; safe to call again."""
    global _full_threshold
    gc.collect()
    gc.freeze()
    young, middle, _full_threshold = THRESHOLDS
    gc.set_threshold(young, middle, STREAMING_FULL_THRESHOLD if _streams else _full_threshold)


@contextmanager
def streaming() -> Iterator[None]:
    """While inside, full collections are held back (young ones still run), to one per
    `STREAMING_FULL_THRESHOLD` middle collections; when the last
    stream ends the oldest generation's threshold is put back, and the collection that
    was held back runs at the next young collection, after the run."""
    global _streams, _full_threshold
    if _streams == 0:
        young, middle, _full_threshold = gc.get_threshold()
        gc.set_threshold(young, middle, max(STREAMING_FULL_THRESHOLD, _full_threshold))
    _streams += 1
    try:
        yield
    finally:
        _streams -= 1
        if _streams == 0:
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, _full_threshold)
