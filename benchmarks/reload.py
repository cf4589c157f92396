"""Live reload: from saving a file to a reloaded server, agent-tui against `langgraph dev`.

    uv run python benchmarks/reload.py [--rounds 3] [--edits 2] [--pause 10]
    uv run python benchmarks/reload.py --quick   # 1 round of 1 edit per way, checked

A multi-agent project with real dependencies: ``tests/graphs/multi_agent.py`` (the real
``langgraph_swarm``, ``langgraph_supervisor`` and ``langchain`` agents, five graphs) as
``agents.py``, with one more small graph, ``marker``, whose one node is named after the
edit (``edit_0``, ``edit_1`` …). Each edit renames that node in ``agents.py`` and times
until the server draws the new node (``GET /assistants/{id}/graph``, asked every 20 ms,
the same for every way): the whole file is imported again, its five graphs with it.

Three ways, side by side in each round (the order rotating) so machine noise hits all:

- **standby** (agent-tui's default, as ``agent-tui serve`` and the app run it: `LiveReload`
  on an `EmbeddedAgentServer` holding its listening socket): a prewarmed graph check and
  server wait for each reload;
- **cold**: ``LiveReload(prewarm=False)``, a fresh graph check and server per reload;
- **langgraph dev**: the official CLI's ``langgraph dev`` (uvicorn's reloader) in the
  project folder.

All three run in agent-tui's own environment (it has langgraph-cli, langgraph-api and the
project's packages), so they import the same code. Between edits it waits ``--pause``
seconds (a person's pace; the standbys are started after each reload and need a few
seconds to import). Prints best and median per way and the ratios of the medians against
``langgraph dev`` (the goal for standby: 0.5x).

Checked (exit status 1 if not): each edit is served within 120 s, agent-tui's reloads end in
a ``reloaded`` event, and a thread made before the first edit is still there after the last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

    from agent_tui.local.live_reload.reloader import ReloadEvent

from benchkit import add_options, arm, check

ROOT = Path(__file__).resolve().parents[1]
QUICK_PAUSE = 8.0  # standby: time for the standbys' imports (they start 3 s in)
QUICK_COLD_PAUSE = 2.0  # cold and langgraph dev: nothing to wait for
RELOAD_TIMEOUT = 120.0
START_TIMEOUT = 120.0
POLL = 0.02
GOAL = 0.5  # standby / langgraph dev, medians

MARKER = """

def _mark(state: MessagesState) -> dict[str, Any]:
    return {}


marker = (
    StateGraph(MessagesState)
    .add_node("edit_0", _mark)
    .add_edge(START, "edit_0")
    .compile(name="marker")
)
"""
GRAPHS = ("swarm", "supervisor", "deep", "brief", "parallel", "marker")


def multi_agent_project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    source = (ROOT / "tests" / "graphs" / "multi_agent.py").read_text()
    (folder / "agents.py").write_text(source + MARKER)
    graphs = {name: f"./agents.py:{name}" for name in GRAPHS}
    (folder / "langgraph.json").write_text(json.dumps({"dependencies": ["."], "graphs": graphs}))
    return folder


def edit(project: Path, number: int) -> None:
    """Rename the marker's node from ``edit_{number - 1}`` to ``edit_{number}``."""
    agents = project / "agents.py"
    text = agents.read_text()
    agents.write_text(text.replace(f'"edit_{number - 1}"', f'"edit_{number}"'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=2, help="reloads per server start")
    parser.add_argument("--pause", type=float, default=10.0, help="seconds between edits")
    add_options(parser, quick=240, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.rounds, args.edits, args.pause = 1, 1, QUICK_PAUSE
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    os.environ["AGENT_TUI_HOME"] = str(home)  # before agent_tui reads its folders
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as installed

    ways: dict[str, Callable[[Path, int, float], Iterator[float]]] = {
        "standby": partial(agent_tui_reloads, prewarm=True),
        "cold": partial(agent_tui_reloads, prewarm=False),
        "langgraph dev": langgraph_dev_reloads,
    }
    times: dict[str, list[float]] = {way: [] for way in ways}
    names = list(ways)
    for round_number in range(args.rounds):
        shift = round_number % len(names)
        for way in names[shift:] + names[:shift]:
            project = multi_agent_project(home / f"{way.replace(' ', '-')}-{round_number}")
            pause = args.pause if way == "standby" or not args.quick else QUICK_COLD_PAUSE
            for number, seconds in enumerate(ways[way](project, args.edits, pause)):
                times[way].append(seconds)
                print(f"round {round_number + 1} {way:14} edit {number + 1}: {seconds:.2f} s")
    print()
    print(f"{'way':14} {'best':>6} {'median':>7}  (seconds from save to the new graph served)")
    for way, values in times.items():
        print(f"{way:14} {min(values):6.2f} {statistics.median(values):7.2f}")
    medians = {way: statistics.median(values) for way, values in times.items()}
    dev = medians["langgraph dev"]
    print(
        f"against langgraph dev, medians: standby {medians['standby'] / dev:.2f}x "
        f"(goal {GOAL}x), cold {medians['cold'] / dev:.2f}x"
    )
    print("checked: every edit was served, agent-tui's as a reload; the thread was kept")
    shutil.rmtree(home, ignore_errors=True)
    return 0


def agent_tui_reloads(project: Path, edits: int, pause: float, *, prewarm: bool) -> Iterator[float]:
    """Serve ``project`` with live reload, edit it ``edits`` times: seconds per reload."""
    import httpx

    from agent_tui.local import EmbeddedAgentServer
    from agent_tui.local.live_reload.reloader import LiveReload

    mode = "standby" if prewarm else "cold"
    changed = threading.Condition()
    seen: list[ReloadEvent] = []

    def on_event(event: ReloadEvent) -> None:
        with changed:
            seen.append(event)
            changed.notify_all()

    server = EmbeddedAgentServer(
        project / "langgraph.json", data_dir=project / "data", hold_listener=True
    )
    with server, httpx.Client(base_url=server.url, timeout=30) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        marker = marker_assistant(client)
        watcher = LiveReload(server, on_event, prewarm=prewarm)
        watcher.start()
        check(watcher.wait_ready(), f"{mode}: the project is not watched: {watcher.error}")
        try:
            for number in range(1, edits + 1):
                time.sleep(pause)
                mark = len(seen)
                started = time.perf_counter()
                edit(project, number)
                served = wait_for_node(client, marker, f"edit_{number}", mode)
                with changed:
                    ended = changed.wait_for(partial(_settled, seen, mark), RELOAD_TIMEOUT)
                last = seen[-1] if seen else None
                check(ended, f"{mode}: no reload event within {RELOAD_TIMEOUT:g} s of an edit")
                check(
                    last is not None and last.kind == "reloaded",
                    f"{mode}: the edit ended in {last}, not a reload",
                )
                yield served - started
            kept = client.get(f"/threads/{thread}")
            check(kept.status_code == 200, f"{mode}: the thread was lost ({kept.status_code})")
        finally:
            watcher.stop()


def langgraph_dev_reloads(project: Path, edits: int, pause: float) -> Iterator[float]:
    """The same with ``langgraph dev`` (its uvicorn reloader) in the project folder."""
    import httpx

    from agent_tui.local.server_environment import server_environment
    from agent_tui.local.supervisor.launch import free_port

    port = free_port("127.0.0.1")
    command = [
        str(Path(sys.executable).parent / "langgraph"),
        "dev",
        "--port",
        str(port),
        "--no-browser",
    ]
    log = (project / "dev.log").open("wb")
    env = server_environment(os.environ)
    process = subprocess.Popen(
        command, cwd=project, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            began = time.monotonic()
            while True:
                check(process.poll() is None, f"langgraph dev exited: {_tail(project)}")
                check(time.monotonic() - began < START_TIMEOUT, "langgraph dev did not start")
                with contextlib.suppress(httpx.TransportError):
                    if client.get("/ok").status_code == 200:
                        break
                time.sleep(0.1)
            thread = client.post("/threads", json={}).json()["thread_id"]
            marker = marker_assistant(client)
            for number in range(1, edits + 1):
                time.sleep(pause)
                started = time.perf_counter()
                edit(project, number)
                yield wait_for_node(client, marker, f"edit_{number}", "langgraph dev") - started
            kept = client.get(f"/threads/{thread}")
            check(kept.status_code == 200, f"langgraph dev lost the thread ({kept.status_code})")
    finally:
        from agent_tui.local.child_processes import kill_group

        kill_group(process.pid, process.terminate)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(30)
        kill_group(process.pid, process.kill)
        process.wait()
        log.close()


def marker_assistant(client: httpx.Client) -> str:
    found = client.post("/assistants/search", json={"graph_id": "marker"}).json()
    check(len(found) == 1, f"the marker graph is not served: {found}")
    return str(found[0]["assistant_id"])


def wait_for_node(client: httpx.Client, assistant: str, node: str, way: str) -> float:
    """When the server first drew the marker with ``node`` (perf_counter)."""
    import httpx

    deadline = time.monotonic() + RELOAD_TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            drawing = client.get(f"/assistants/{assistant}/graph")
            if drawing.status_code == 200:
                nodes = {str(n.get("id")) for n in drawing.json().get("nodes", [])}
                if node in nodes:
                    return time.perf_counter()
        time.sleep(POLL)
    check(False, f"{way}: {node} not served within {RELOAD_TIMEOUT:g} s of the edit")
    raise AssertionError  # not reached


def _tail(project: Path) -> str:
    with contextlib.suppress(OSError):
        return (project / "dev.log").read_text(errors="replace")[-2000:]
    return ""


def _settled(seen: list[ReloadEvent], mark: int) -> bool:
    return any(event.kind != "reloading" for event in seen[mark:])


if __name__ == "__main__":
    raise SystemExit(main())
