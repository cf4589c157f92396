"""PROTOTYPE check for issue 31 (docs/durability-plan.md): start the server of
`agent_tui.server.main` on the demo graphs, write over HTTP (threads, runs answered by
``runs/wait`` and by a stream, a background run, a thread copy, a rollback, an assistant
and its update, a cron, a store item, a deleted thread), ``kill -9`` the server right after
the last answer, start it again on the same data folder and check every acknowledged write
(the writes and checks: `tests.support.acknowledged_writes`; the same check as a test:
``tests/functional/server/test_kill_nine.py``). Here: more rounds, a delay, and another
Python (an environment with another langgraph-api version).

    uv run python prototypes/kill_check.py [--rounds 5] [--delay 0] [--python PATH]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.acknowledged_writes import (
    CHECKS_PER_ROUND,
    lost_writes,
    write_round,
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(python: str, data: Path, log: Path) -> tuple[subprocess.Popen[bytes], httpx.Client]:
    from agent_tui.local import DEMO_CONFIG
    from agent_tui.local.server_environment import server_environment

    data.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = server_environment(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    process = subprocess.Popen(
        [python, "-m", "agent_tui.server.main", "--config", str(DEMO_CONFIG), "--port", str(port)],
        cwd=data,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=60)
    began = time.monotonic()
    while True:
        try:
            if client.get("/ok").status_code == 200:
                return process, client
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() - began > 90:
            raise SystemExit(f"the server did not start: see {log}")
        time.sleep(0.1)


def kill(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before the kill")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="agent-tui-kill-"))
    data, log = home / "data", home / "server.log"
    written: list[dict[str, Any]] = []
    total_lost = 0
    for n in range(args.rounds):
        process, client = start(args.python, data, log)
        try:
            for earlier, w in enumerate(written):
                lost = lost_writes(client, w, earlier)
                total_lost += len(lost)
                if lost:
                    print(f"round {n}: lost from round {earlier}: {lost}")
            written.append(write_round(client, n))
            if args.delay:
                time.sleep(args.delay)
        finally:
            kill(process)
            client.close()
    process, client = start(args.python, data, log)
    try:
        for earlier, w in enumerate(written):
            lost = lost_writes(client, w, earlier)
            total_lost += len(lost)
            if lost:
                print(f"after the last kill: lost from round {earlier}: {lost}")
    finally:
        kill(process)
    checks = CHECKS_PER_ROUND * args.rounds * (args.rounds + 1) // 2
    print(
        f"{args.rounds} kills (-9, {args.delay:g} s after the last answer): "
        f"{total_lost} of {checks} checks of acknowledged writes failed; log {log}"
    )
    return 1 if total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
