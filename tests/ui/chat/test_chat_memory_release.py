"""A chat that streamed a lot, left with `esc`: the thread view, its chat and transcript are
freed, even when the app froze them (it freezes what is alive once connected, see
tui/memory_release.py) — what `benchmarks/endless_stream.py` measures in megabytes."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator

import pytest
from textual import events
from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.tui import gc_tuning
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    pane_of,
)
from tests.support.shell import ShellHarness
from tests.support.stream_faults import Fault, FaultyStreams
from tests.support.waiting import WaitFor, wait_in_flood


@pytest.fixture
def collector_tuned() -> Iterator[None]:
    """The collector as the app tunes it; put back afterwards (the test process goes on)."""
    saved = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)


async def test_leaving_a_chat_that_streamed_a_lot_frees_the_thread_view(
    client: AgentServerClient,
    faulty: AgentServerClient,
    faults: FaultyStreams,
    wait_for: WaitFor,
    collector_tuned: None,
) -> None:
    slow = await chat_assistant(client, token_delay_ms=20)  # runs on while the stream comes
    thread = await chat_thread(client, slow)
    # 100-character chunks for ever, a new message every 100 (a few messages a second).
    faults.arm(Fault("endless", after_events=5, chunk_chars=100))
    app, screen = chat_app(faulty, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        # As the app does once connected, here with the thread view open: all frozen.
        gc_tuning.tune_for_streaming()
        pane = pane_of(app)
        gone: dict[str, Callable[[], object]] = {
            "thread view": weakref.ref(screen),
            "chat pane": weakref.ref(pane),
            "transcript": weakref.ref(pane.transcript),
        }
        del screen, pane
        await stream_then_stop(app, pilot, faults, wait_for)
        app.post_message(events.Key("escape", None))
        await wait_for(
            pilot,
            lambda: not isinstance(app.screen, ThreadViewScreen),
            what="esc to leave the thread view",
        )
        app.first = None  # the harness's own reference to the screen it opened

        def still_alive() -> list[str]:
            return [what for what, ref in gone.items() if ref() is not None]

        await wait_for(
            pilot,
            lambda: not still_alive(),
            what="the thread view, its chat pane and transcript freed",
            timeout=60,  # the release after its last requests' timers (32 s) at worst
        )


async def stream_then_stop(
    app: ShellHarness, pilot: Pilot[None], faults: FaultyStreams, wait_for: WaitFor
) -> None:
    """A run whose stream never ends, 2,000 chunks of it, then `esc` (cancel)."""
    pane = pane_of(app)
    # Not Pilot's keys while the stream comes: they wait for an idle app, which a
    # stream that never ends does not leave.
    pane.send("count to 100000")
    await wait_in_flood(
        lambda: bool(faults.streams) and faults.streams[0].made_up >= 2_000,
        what="2,000 chunks (20 messages) streamed",
        # The flood comes as fast as the app reads it: in a double run of the suite on two
        # cores (49 minutes a copy) 2,000 took more than 60 s. What is tested is the freeing.
        timeout=180,
    )
    app.post_message(events.Key("escape", None))
    await wait_in_flood(lambda: ended(pane), what="esc to end the run")
    await wait_in_flood(faults.streams[0].closed.is_set, what="the stream closed")
    # What the run's end started (the history's reload) done: the view is at rest.
    await wait_for(pilot, lambda: not app.workers, what="the view's reload")
