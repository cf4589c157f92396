"""agent-tui's agent server as its own process (``python -m agent_tui.server.main``), on a
free port and a data folder of the test's, for the tests that kill it with SIGKILL and
start it again on the same folder."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from agent_tui.client.tls import loopback_tls_context
from agent_tui.local import DEMO_CONFIG
from agent_tui.local.server_environment import server_environment
from tests.support.processes import gone_within
from tests.support.service_processes import Service, Watchdog


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    data: Path,
    log: Path,
    watchdog: Watchdog,
    *,
    python: Path | str = sys.executable,
    config: Path = DEMO_CONFIG,
) -> tuple[Service, httpx.Client]:
    """The server of ``config`` on ``python``, once it answers ``GET /ok``, and a client of it."""
    port = free_port()
    command = [str(python), "-m", "agent_tui.server.main"]
    command += ["--config", str(config), "--port", str(port)]
    service = Service(
        "agent_tui.server",
        command,
        log=log,
        watchdog=watchdog,
        env=server_environment(os.environ),
        cwd=data,
        stop_signal=signal.SIGKILL,
        lifeline=True,
    )
    service.start()
    # trust_env=False: a proxy from the environment must not see local traffic.
    client = httpx.Client(
        base_url=f"http://127.0.0.1:{port}",
        trust_env=False,
        timeout=60,
        verify=loopback_tls_context(),
    )

    def answers() -> bool:
        try:
            return client.get("/ok", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    service.wait_until(answers, 60, "an answer to GET /ok")
    return service, client


@contextlib.contextmanager
def killed_after(
    data: Path, log: Path, watchdog: Watchdog, **options: Any
) -> Iterator[httpx.Client]:
    """A client of a server started on ``data`` (`start_server`), the server killed with
    SIGKILL when the block ends."""
    service, client = start_server(data, log, watchdog, **options)
    try:
        yield client
    finally:
        client.close()
        kill_nine(service)


def kill_nine(service: Service) -> None:
    """SIGKILL to the server's whole process group, and wait until it is gone."""
    pid = service.pid
    assert pid is not None
    service.stop()  # SIGKILL to the whole group, at once
    assert gone_within([pid], 30, groups=True), "the killed server is still running"


def poll(read: Callable[[], Any], done: Callable[[Any], bool], timeout: float, what: str) -> Any:
    """``read()`` again until ``done`` holds for what it returned; fail after ``timeout``
    seconds saying what was waited for and what was last read."""
    deadline = time.monotonic() + timeout
    while not done(seen := read()):
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} after {timeout:.0f} s; last: {seen!r}")
        time.sleep(0.2)  # another process's progress: nothing to wait on but the clock
    return seen
