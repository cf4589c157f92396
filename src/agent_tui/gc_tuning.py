"""Garbage collector settings for a long-lived, streaming UI.

A streamed answer allocates many short-lived objects (events, dicts, Rich segments), so
CPython's collector runs often, and now and then a full collection walks every object
the process holds — Textual, pydantic models, the loaded screens — pausing the app for
100 to 300 ms mid-stream (measured with `benchmarks/chat_render.py`: most of the key-press
p99). Freezing what exists once the app is up moves those long-lived objects out of the
collector's sight, and a larger first threshold makes young collections rarer. Cycles
are still collected; only their scanning gets cheaper. Textual itself turns the
collector off during scroll animations for the same reason.
"""

from __future__ import annotations

import gc

THRESHOLDS = (7000, 20, 100)  # CPython's defaults: (700, 10, 10)


def tune_for_streaming() -> None:
    """Freeze everything alive now and space collections out; safe to call again."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
