"""PROTOTYPE check for issue 31 (docs/durability-plan.md): start the server of
`agent_tui.server.main` on the demo graphs, write over HTTP (threads, runs answered by
``runs/wait`` and by a stream, a background run, a thread copy, a rollback, an assistant
and its update, a cron, a store item, a deleted thread), ``kill -9`` the server right after
the last answer, start it again on the same data folder and check every acknowledged write.

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

CHAT = {"messages": [{"role": "user", "content": "weather in Paris"}]}


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


def ok(response: httpx.Response) -> Any:
    response.raise_for_status()
    return response.json() if response.content else None


def write(client: httpx.Client, n: int) -> dict[str, Any]:
    w: dict[str, Any] = {}
    w["chat"] = ok(client.post("/threads", json={"metadata": {"n": n}}))["thread_id"]
    body = {"assistant_id": "chat", "input": CHAT, "stream_mode": ["values"]}
    with client.stream("POST", f"/threads/{w['chat']}/runs/stream", json=body) as stream:
        last = [line for line in stream.iter_lines() if line.startswith("data:")][-1]
    assert "Paris" in last, last
    w["counter"] = ok(client.post("/threads", json={}))["thread_id"]
    answer = ok(
        client.post(
            f"/threads/{w['counter']}/runs/wait",
            json={"assistant_id": "counter", "input": {"by": 3}},
        )
    )
    assert answer["count"] == 3, answer
    w["copy"] = ok(client.post(f"/threads/{w['counter']}/copy", json={}))["thread_id"]
    w["background"] = ok(client.post("/threads", json={}))["thread_id"]
    w["background_run"] = ok(
        client.post(
            f"/threads/{w['background']}/runs", json={"assistant_id": "counter", "input": {"by": 5}}
        )
    )["run_id"]
    assistant = ok(client.post("/assistants", json={"graph_id": "counter", "name": f"kept-{n}"}))
    w["assistant"] = assistant["assistant_id"]
    ok(client.patch(f"/assistants/{w['assistant']}", json={"name": f"renamed-{n}"}))
    w["cron"] = ok(
        client.post(
            f"/threads/{w['counter']}/runs/crons",
            json={"assistant_id": "counter", "schedule": "0 0 1 1 *", "input": {"by": 1}},
        )
    )["cron_id"]
    ok(
        client.put(
            "/store/items", json={"namespace": ["kill", str(n)], "key": "k", "value": {"n": n}}
        )
    )
    doomed = ok(client.post("/threads", json={}))["thread_id"]
    client.delete(f"/threads/{doomed}").raise_for_status()
    w["deleted"] = doomed
    return w


def check(client: httpx.Client, w: dict[str, Any], n: int) -> list[str]:
    lost = []

    def expect(what: str, condition: bool) -> None:
        if not condition:
            lost.append(what)

    state = client.get(f"/threads/{w['chat']}/state").json()
    expect("chat state", "Paris" in str(state.get("values")))
    runs = client.get(f"/threads/{w['chat']}/runs").json()
    expect("chat run success", [r["status"] for r in runs] == ["success"])
    state = client.get(f"/threads/{w['counter']}/state").json()
    expect("counter state", (state.get("values") or {}).get("count") == 3)
    runs = client.get(f"/threads/{w['counter']}/runs").json()
    expect("counter run success", [r["status"] for r in runs] == ["success"])
    state = client.get(f"/threads/{w['copy']}/state").json()
    expect("copied thread state", (state.get("values") or {}).get("count") == 3)
    run = client.get(f"/threads/{w['background']}/runs/{w['background_run']}")
    expect("background run", run.status_code == 200)
    assistant = client.get(f"/assistants/{w['assistant']}")
    expect(
        "assistant rename",
        assistant.status_code == 200 and assistant.json()["name"] == f"renamed-{n}",
    )
    crons = client.post("/runs/crons/search", json={"thread_id": w["counter"]}).json()
    expect("cron", any(c["cron_id"] == w["cron"] for c in crons))
    item = client.get("/store/items", params={"namespace": f"kill.{n}", "key": "k"}).json()
    expect("store item", bool(item) and item["value"] == {"n": n})
    expect("thread deletion", client.get(f"/threads/{w['deleted']}").status_code == 404)
    return lost


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
                lost = check(client, w, earlier)
                total_lost += len(lost)
                if lost:
                    print(f"round {n}: lost from round {earlier}: {lost}")
            written.append(write(client, n))
            if args.delay:
                time.sleep(args.delay)
        finally:
            kill(process)
            client.close()
    process, client = start(args.python, data, log)
    try:
        for earlier, w in enumerate(written):
            lost = check(client, w, earlier)
            total_lost += len(lost)
            if lost:
                print(f"after the last kill: lost from round {earlier}: {lost}")
    finally:
        kill(process)
    checks = 10 * args.rounds * (args.rounds + 1) // 2
    print(
        f"{args.rounds} kills (-9, {args.delay:g} s after the last answer): "
        f"{total_lost} of {checks} checks of acknowledged writes failed; log {log}"
    )
    return 1 if total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
