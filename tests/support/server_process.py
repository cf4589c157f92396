"""The local agent server as its own process (``python -m agent_tui.server.main``) on a
data folder of the test's, on a free port, for tests that kill it and look at its files."""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

import httpx

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
    python: str = sys.executable,
    config: Path = DEMO_CONFIG,
) -> tuple[Service, httpx.Client]:
    """A started server (its ``/ok`` answers) and a client of it."""
    port = free_port()
    command = [python, "-m", "agent_tui.server.main", "--config", str(config)]
    command += ["--port", str(port)]
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
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=60)

    def answers() -> bool:
        try:
            return client.get("/ok", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    service.wait_until(answers, 60, "an answer to GET /ok")
    return service, client


def kill_nine(service: Service) -> None:
    pid = service.pid
    assert pid is not None
    service.stop()  # SIGKILL to the whole group, at once
    assert gone_within([pid], 30, groups=True), "the killed server is still running"
