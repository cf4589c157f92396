"""The local servers keep an idle connection open well past the client's 2 s idle limit
(`client.transport.LIMITS`): at uvicorn's 5 s, a server loop stalled a few seconds on a
loaded machine closed a connection a request had just been sent on, and the client got
no answer (`ReadError` on a `POST /threads`, seen in CI)."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

from agent_tui.local.control_plane.server import LocalControlPlane

IDLE = 6.0  # seconds: past uvicorn's default of 5


def answered_after_idling(url: str) -> list[bytes]:
    """The status lines of two requests on one connection, `IDLE` seconds apart."""
    where = urlsplit(url)
    request = f"GET /ok HTTP/1.1\r\nHost: {where.netloc}\r\n\r\n".encode()
    lines = []
    with socket.create_connection((where.hostname, where.port), timeout=10) as conn:
        for attempt in range(2):
            if attempt:
                time.sleep(IDLE)  # the idle time is the point: nothing to wait on
            conn.sendall(request)
            data = conn.recv(65536)
            lines.append(data.split(b"\r\n", 1)[0])
    return lines


def test_the_agent_server_keeps_an_idle_connection(agent_server_url: str) -> None:
    assert answered_after_idling(agent_server_url) == [b"HTTP/1.1 200 OK"] * 2


def test_the_control_plane_keeps_an_idle_connection(tmp_path: Path) -> None:
    with LocalControlPlane(data_dir=tmp_path) as plane:
        lines = answered_after_idling(plane.url)
    assert len(lines) == 2 and all(line.startswith(b"HTTP/1.1 ") for line in lines), lines
