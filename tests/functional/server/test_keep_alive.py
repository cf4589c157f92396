"""The local servers keep an idle connection open well past the client's 2 s idle limit
(`client.transport.LIMITS`): at uvicorn's 5 s, a server loop stalled a few seconds on a
loaded machine closed a connection a request had just been sent on, and the client got
no answer (`ReadError` on a `POST /threads`, seen in CI)."""

from __future__ import annotations

import http.client
import time
from pathlib import Path
from urllib.parse import urlsplit

from agent_tui.local.control_plane.server import LocalControlPlane

IDLE = 6.0  # seconds: past uvicorn's default of 5


def answered_after_idling(url: str) -> list[int]:
    """The statuses of two requests on one connection, `IDLE` seconds apart."""
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
    statuses = []
    try:
        for attempt in range(2):
            if attempt:
                time.sleep(IDLE)  # the idle time is the point: nothing to wait on
            conn.request("GET", "/ok")
            if attempt == 0:
                assert conn.sock is not None
                local = conn.sock.getsockname()
            answer = conn.getresponse()
            answer.read()
            statuses.append(answer.status)
        assert conn.sock is not None and conn.sock.getsockname() == local  # the same one
    finally:
        conn.close()
    return statuses


def test_the_agent_server_keeps_an_idle_connection(agent_server_url: str) -> None:
    assert answered_after_idling(agent_server_url) == [200, 200]


def test_the_control_plane_keeps_an_idle_connection(tmp_path: Path) -> None:
    with LocalControlPlane(data_dir=tmp_path) as plane:
        statuses = answered_after_idling(plane.url)
    assert len(statuses) == 2, statuses  # answered (without its key: refused) twice
