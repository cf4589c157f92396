"""The local agent server (`agent_tui.server`) keeps every write it acknowledged through
``kill -9``, on the oldest and the newest langgraph-api release it supports.

The server runs as its own process (``python -m agent_tui.server.main``, on the Python of
an environment with that release: `tests.support.api_envs`) on the demo graphs, on a free
port. Each round writes over HTTP (threads, a streamed chat run, a ``runs/wait`` run, a
thread copy, a background run, an assistant and its rename, a cron, a store item, a deleted
thread), kills the server's process group with SIGKILL right after the last answer, and
starts a new server on the same data folder, which must answer every earlier round's writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.acknowledged_writes import lost_writes, write_round
from tests.support.api_envs import ApiEnv, api_env
from tests.support.server_process import kill_nine, start_server
from tests.support.service_processes import Watchdog

__all__ = ["api_env"]

ROUNDS = 2


@pytest.fixture
def watchdog() -> Iterator[Watchdog]:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


def test_every_acknowledged_write_is_there_after_kill_nine(
    tmp_path: Path, watchdog: Watchdog, api_env: ApiEnv
) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    data.mkdir()
    written: list[dict[str, Any]] = []
    for round_ in range(ROUNDS + 1):
        service, client = start_server(data, log, watchdog, python=api_env.python)
        try:
            if round_ == 0:
                info = client.get("/info").json()
                assert info["version"] == api_env.release.api, "not the release under test"
            lost = {n: lost_writes(client, w, n) for n, w in enumerate(written)}
            assert not any(lost.values()), f"lost after {round_} kills: {lost}"
            if round_ < ROUNDS:
                written.append(write_round(client, round_))
        finally:
            client.close()
            kill_nine(service)
