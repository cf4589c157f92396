"""The local agent server (`agent_tui.server`) keeps every write it acknowledged through
``kill -9``.

The server runs as its own process (``python -m agent_tui.server.main``) on the demo
graphs, on a free port. Each round writes over HTTP (threads, a streamed chat run, a
``runs/wait`` run, a thread copy, a background run, an assistant and its rename, a cron, a
store item, a deleted thread), kills the server's process group with SIGKILL right after
the last answer, and starts a new server on the same data folder, which must answer every
earlier round's writes.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local import DEMO_CONFIG
from agent_tui.local.server_environment import server_environment
from tests.support.acknowledged_writes import lost_writes, write_round
from tests.support.processes import gone_within
from tests.support.service_processes import Service, Watchdog

ROUNDS = 2


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def watchdog() -> Any:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


def start_server(data: Path, log: Path, watchdog: Watchdog) -> tuple[Service, httpx.Client]:
    port = free_port()
    command = [sys.executable, "-m", "agent_tui.server.main"]
    command += ["--config", str(DEMO_CONFIG), "--port", str(port)]
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


def test_every_acknowledged_write_is_there_after_kill_nine(
    tmp_path: Path, watchdog: Watchdog
) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    data.mkdir()
    written: list[dict[str, Any]] = []
    for round_ in range(ROUNDS + 1):
        service, client = start_server(data, log, watchdog)
        try:
            lost = {n: lost_writes(client, w, n) for n, w in enumerate(written)}
            assert not any(lost.values()), f"lost after {round_} kills: {lost}"
            if round_ < ROUNDS:
                written.append(write_round(client, round_))
        finally:
            client.close()
            kill_nine(service)
