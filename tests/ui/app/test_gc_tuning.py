"""The collector while a run streams: young collections go on, full ones wait for the end
(a full collection is what paused the chat for 100 ms and more, see tui/gc_tuning.py) — but
not for ever: a stream that never ends still gets one now and then, or the cycles that
only a full collection frees grow the app without bound."""

from __future__ import annotations

import asyncio
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


@pytest.mark.asyncio(loop_scope="function")
async def test_after_a_run_the_full_collection_waits_for_the_screen_to_catch_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long answer's end is still being drawn when its run ends: the full collection
    held back (a pause of the whole app) comes once the drawing is done, and only one.

    Counted are the collections `gc_tuning` asks for (`release_memory`), not every full
    collection of the process: the collector's own thresholds are shared with the other
    threads of a test worker, and what earlier tests froze decides when they are met."""
    monkeypatch.setattr(gc_tuning, "RELEASE_DELAY_S", 0.0)
    monkeypatch.setattr(gc_tuning, "CATCH_UP_CHECK_S", 0.0)
    monkeypatch.setattr(gc_tuning, "_released_at", [])  # no release yet: this one collects
    releases: list[int] = []
    release = gc_tuning.release_memory

    def counted_release() -> None:
        releases.append(gc.get_threshold()[2])
        release()

    monkeypatch.setattr(gc_tuning, "release_memory", counted_release)
    saved = gc.get_threshold()
    gc.set_threshold(700, 2, 2)
    try:
        with gc_tuning.catching_up():  # the text is still being drawn
            with gc_tuning.streaming():
                pass
            for _ in range(20):  # turns of the loop meanwhile: the checks come and wait
                await asyncio.sleep(0)
            assert releases == []
            assert gc.get_threshold()[2] >= gc_tuning.STREAMING_FULL_THRESHOLD  # held back
        for _ in range(100):  # the next checks, once the drawing is done
            if releases:
                break
            await asyncio.sleep(0)
        assert gc.get_threshold() == (700, 2, 2)  # put back…
        assert releases == [2]  # …before the release's one collection
        for _ in range(20):
            await asyncio.sleep(0)
        assert releases == [2]  # and not a second one
    finally:
        gc.set_threshold(*saved)
