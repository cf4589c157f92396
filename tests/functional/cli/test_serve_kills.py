"""`agent-tui serve` under ``kill -9``: a killed server child is started again (as the app
does), and a killed `serve` restarted 2 s later, while its old child may still be shutting
down, loses no write the old server acknowledged. The rounds of writes are those of the
server's own kill test (`tests.support.acknowledged_writes`)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx

from agent_tui.local import DEMO_CONFIG, server_key
from tests.support.acknowledged_writes import lost_writes, write_round
from tests.support.processes import gone_within
from tests.support.serve import Serve


def server_pid(home: Path) -> int:
    note = home / "data" / "servers" / server_key(DEMO_CONFIG) / "server.json"
    pid = json.loads(note.read_text())["server_pid"]
    assert isinstance(pid, int)
    return pid


def client_of(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, trust_env=False, timeout=60)


def test_serve_starts_a_killed_server_again_and_keeps_what_it_answered(
    tmp_path: Path, serves: list[Serve]
) -> None:
    home = tmp_path / "home"
    serve = Serve(home, tmp_path)
    serves.append(serve)
    url = serve.url()
    with client_of(url) as client:
        written = write_round(client, 0)
        child = server_pid(home)
        os.kill(child, signal.SIGKILL)
        serve.wait_for_stderr("was killed by SIGKILL; starting it again", timeout=30)
        serve.wait_for_stderr(f"running again at {url}", timeout=90)
        assert serve.process.poll() is None, serve.stderr
        assert server_pid(home) != child
        assert not lost_writes(client, written, 0)
    assert serve.stop() == 0


def test_a_killed_serve_restarted_two_seconds_later_loses_no_acknowledged_write(
    tmp_path: Path, serves: list[Serve]
) -> None:
    home = tmp_path / "home"
    written: list[dict[str, Any]] = []
    for round_ in range(3):
        serve = Serve(home, tmp_path)
        serves.append(serve)
        url = serve.url()
        with client_of(url) as client:
            lost = {n: lost_writes(client, w, n) for n, w in enumerate(written)}
            assert not any(lost.values()), f"lost after {round_} kills of serve: {lost}"
            if round_ == 2:
                break
            written.append(write_round(client, round_))
        child = server_pid(home)
        serve.process.kill()  # agent-tui serve, not its server: the child shuts down alone
        serve.process.wait(10)
        time.sleep(2)  # the user starts it again: the old child may still be going
    assert serve.stop() == 0
    assert gone_within([child], 30), "the first server outlived its serve"
