"""The collector while a run streams: young collections go on, full ones wait for the end
(a full collection is what paused the chat for 100 ms and more, see tui/gc_tuning.py) — but
not for ever: a stream that never ends still gets one now and then, or the cycles that
only a full collection frees grow the app without bound."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from agent_tui.tui import gc_tuning


@pytest.fixture
def collections_seen() -> Iterator[list[int]]:
    """The generation of each collection that the test's own allocations start (not one
    another thread asks for with `gc.collect()`)."""
    seen: list[int] = []
    saved = gc.get_threshold()
    this_thread = threading.get_ident()

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and threading.get_ident() == this_thread:
            seen.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield seen
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*saved)


def churn(rounds: int) -> None:
    """Allocate and drop container objects, as a streamed answer does."""
    for _ in range(rounds):
        kept = [[n] for n in range(5000)]
        del kept


def test_no_full_collection_while_streaming_and_it_comes_after(
    collections_seen: list[int],
) -> None:
    gc.set_threshold(700, 2, 2)  # a full collection after only 4 young ones, to see it
    with gc_tuning.streaming(), gc_tuning.streaming():  # two thread views streaming
        collections_seen.clear()  # pytest's own `gc.collect()` around a test's start
        churn(20)
        assert 0 in collections_seen and 1 in collections_seen  # cycles still collected
        assert 2 not in collections_seen
        assert gc.get_threshold()[:2] == (700, 2)  # young collections unchanged
    assert gc.get_threshold() == (700, 2, 2)  # put back when the last stream ends
    collections_seen.clear()
    churn(200)
    assert 2 in collections_seen


def test_tuning_during_a_stream_keeps_full_collections_held_back(
    collections_seen: list[int],
) -> None:
    with gc_tuning.streaming():
        gc_tuning.tune_for_streaming()
        collections_seen.clear()  # the tuning's own collection
        churn(40)
        assert 2 not in collections_seen
    assert gc.get_threshold() == gc_tuning.THRESHOLDS
    gc.unfreeze()


def test_a_stream_that_never_ends_still_gets_full_collections_now_and_then(
    collections_seen: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gc_tuning, "STREAMING_FULL_THRESHOLD", 10)
    gc.set_threshold(700, 2, 2)
    with gc_tuning.streaming():
        gc.collect()  # counting from a full collection
        collections_seen.clear()
        churn(400)
        middle_before_full = collections_seen[: collections_seen.index(2)].count(1)
    # Held back well past the usual two middle collections, then done.
    assert middle_before_full >= 10
    assert collections_seen.count(2) >= 2
