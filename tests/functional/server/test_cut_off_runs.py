"""A background run cut off by ``kill -9`` runs again when the server comes back, and its
thread takes new runs, on the oldest and the newest langgraph-api release supported.

langgraph-runtime-inmem 0.36 puts a run saved as ``running`` back in the queue at start;
0.34 and 0.35 left it ``running`` for ever, and its thread busy: no later run on it ever
started (`agent_tui.server.upstream.requeue_cut_off_runs` does it for them).

The run is of the test graph ``ticker``, held open by a gate file until the server is killed
(so it is cut off mid-run, as a crash would), then let through.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.api_envs import ApiEnv, api_env
from tests.support.paths import GRAPHS
from tests.support.server_process import kill_nine, poll, start_server
from tests.support.service_processes import Watchdog

__all__ = ["api_env"]


@pytest.fixture
def watchdog() -> Iterator[Watchdog]:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


def ticker_project(folder: Path) -> Path:
    """A project of the ``ticker`` graph alone (the suite's config has graphs whose
    packages these environments lack)."""
    folder.mkdir()
    shutil.copy(GRAPHS / "ticker.py", folder / "ticker.py")
    config = folder / "langgraph.json"
    config.write_text('{"dependencies": ["."], "graphs": {"ticker": "./ticker.py:graph"}}')
    return config


def ok(response: httpx.Response) -> Any:
    response.raise_for_status()
    return response.json()


def test_a_run_cut_off_by_kill_nine_runs_again_and_its_thread_is_not_stuck(
    tmp_path: Path, watchdog: Watchdog, api_env: ApiEnv
) -> None:
    config = ticker_project(tmp_path / "project")
    data, log, gate = tmp_path / "data", tmp_path / "server.log", tmp_path / "gate"
    data.mkdir()
    held = {"ticks": 1, "delay": 0.05, "gate": str(gate)}

    service, client = start_server(data, log, watchdog, python=api_env.python, config=config)
    try:
        thread = ok(client.post("/threads", json={}))["thread_id"]
        run = ok(
            client.post(
                f"/threads/{thread}/runs",
                json={"assistant_id": "ticker", "input": {}, "context": held},
            )
        )["run_id"]
        poll(
            lambda: ok(client.get(f"/threads/{thread}/runs/{run}"))["status"],
            lambda status: status == "running",
            60,
            "running run",
        )
        ok(client.post("/threads", json={}))  # acknowledged: saved with the run running
    finally:
        client.close()
        kill_nine(service)

    gate.touch()  # the run, once it runs again, ends at once
    service, client = start_server(data, log, watchdog, python=api_env.python, config=config)
    try:
        poll(
            lambda: ok(client.get(f"/threads/{thread}/runs/{run}"))["status"],
            lambda status: status == "success",
            60,
            "successful end of the cut-off run",
        )
        assert ok(client.get(f"/threads/{thread}/state"))["values"] == {"done": 1}
        again = client.post(
            f"/threads/{thread}/runs/wait",
            json={"assistant_id": "ticker", "input": {}, "context": held},
        )
        assert again.status_code == 200, again.text
        assert again.json() == {"done": 1}
        statuses = [r["status"] for r in ok(client.get(f"/threads/{thread}/runs"))]
        assert statuses == ["success", "success"]
        assert ok(client.get(f"/threads/{thread}"))["status"] == "idle"
    finally:
        client.close()
        kill_nine(service)
