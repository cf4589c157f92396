"""How long the client waits: for a connection, an answer, a stream's next event.

A server on this machine (`is_loopback`) gets a long connect timeout (`for_host`): the
kernel opens a connection to it at once, so only our own stalled process makes it late.
"""

from __future__ import annotations

import httpx

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=30.0, write=30.0, pool=10.0)
# A run can think for a long time between events; the server sends heartbeats, so a
# silence of this long means the connection is dead, not that the run is slow.
STREAM_TIMEOUT = httpx.Timeout(connect=5.0, read=300.0, write=30.0, pool=10.0)

LOOPBACK_CONNECT = 60.0
"""The connect timeout for a server on this machine. The kernel completes a connection
to a listening loopback socket however busy the server is (and refuses one at once when
nothing listens), so a connect to it is late only when our own process was held up — a
loaded machine, a long garbage collection: seen as `ConnectTimeout`s in a test process
beside a second test suite. Waiting is better than failing a request that is fine."""


def for_host(timeout: httpx.Timeout | float, loopback: bool) -> httpx.Timeout:
    """``timeout``, with `LOOPBACK_CONNECT` for a loopback server's connect."""
    timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
    if not loopback or timeout.connect is None or timeout.connect >= LOOPBACK_CONNECT:
        return timeout
    return httpx.Timeout(
        connect=LOOPBACK_CONNECT, read=timeout.read, write=timeout.write, pool=timeout.pool
    )


def is_loopback(url: str) -> bool:
    host = httpx.URL(url).host
    return host in {"localhost", "::1"} or host.startswith("127.")
