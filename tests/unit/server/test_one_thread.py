"""`agent_tui.server.one_thread`: the checkpointer's calls, run off the event loop in the
order they were made, each caller answered with its own result or error."""

from __future__ import annotations

import asyncio
import functools
import threading

import pytest

from agent_tui.server.one_thread import OneThread


async def test_calls_run_in_order_on_one_other_thread_and_each_gets_its_own_answer() -> None:
    thread = OneThread("test")
    ran: list[tuple[int, int]] = []
    release = threading.Event()

    def call(n: int) -> int:
        if n == 0:
            release.wait(10)  # the others are made while this one runs: one batch
        ran.append((n, threading.get_ident()))
        if n == 3:
            raise ValueError("three")
        return n * 10

    try:
        first = asyncio.ensure_future(thread.run(lambda: call(0)))
        await asyncio.sleep(0)
        rest = [asyncio.ensure_future(thread.run(functools.partial(call, n))) for n in range(1, 6)]
        await asyncio.sleep(0)
        release.set()
        answers = await asyncio.gather(first, *rest, return_exceptions=True)
    finally:
        thread.shutdown()
    assert answers[:3] == [0, 10, 20]
    assert isinstance(answers[3], ValueError)
    assert answers[4:] == [40, 50]
    assert [n for n, _ in ran] == [0, 1, 2, 3, 4, 5]
    assert {ident for _, ident in ran} != {threading.get_ident()}
    assert len({ident for _, ident in ran}) == 1


async def test_a_cancelled_caller_leaves_the_others_answered() -> None:
    thread = OneThread("test")
    release = threading.Event()
    try:
        slow = asyncio.ensure_future(thread.run(lambda: release.wait(10)))
        await asyncio.sleep(0)
        given_up = asyncio.ensure_future(thread.run(lambda: 1))
        kept = asyncio.ensure_future(thread.run(lambda: 2))
        await asyncio.sleep(0)
        given_up.cancel()
        release.set()
        assert await slow is True
        assert await kept == 2
        with pytest.raises(asyncio.CancelledError):
            await given_up
        assert await thread.run(lambda: 3) == 3
    finally:
        thread.shutdown()
