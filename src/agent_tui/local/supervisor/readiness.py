"""Waiting for an agent server to answer ``GET /ok``: the embedded server's readiness."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import httpx

from agent_tui.client.tls import loopback_tls_context


def wait_for_ok(url: Callable[[], str], check_alive: Callable[[], None], timeout: float) -> bool:
    """Ask ``{url()}/ok`` until it answers 200 (True) or ``timeout`` seconds pass (False).

    ``check_alive`` runs before each try: it raises when the server is gone, and may
    start it again elsewhere, so the URL is asked for each time.
    """
    deadline = time.monotonic() + timeout
    with httpx.Client(trust_env=False, verify=loopback_tls_context()) as client:
        while True:
            check_alive()
            with contextlib.suppress(httpx.TransportError):
                response = client.get(f"{url()}/ok", timeout=_probe_timeout(deadline))
                if response.status_code == 200:
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


async def wait_for_ok_async(
    url: Callable[[], str], check_alive: Callable[[], Awaitable[None]], timeout: float
) -> bool:
    """`wait_for_ok` for an event loop: never blocks it."""
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(trust_env=False, verify=loopback_tls_context()) as client:
        while True:
            await check_alive()
            with contextlib.suppress(httpx.TransportError):
                response = await client.get(f"{url()}/ok", timeout=_probe_timeout(deadline))
                if response.status_code == 200:
                    return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)


def _probe_timeout(deadline: float) -> float:
    # The first request may wait in the socket's backlog until the server accepts it.
    return max(0.1, min(2.0, deadline - time.monotonic()))
