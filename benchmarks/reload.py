"""Live reload: from saving a file to a reloaded server, with and without standbys.

    uv run python benchmarks/reload.py [--rounds 3] [--edits 2] [--pause 10]
    uv run python benchmarks/reload.py --quick   # 1 round of 1 edit, checked (~25 s)

A one-graph project (``tests/graphs/counter.py`` as ``agent.py``) is served by the
embedded server with live reload on, as ``agent-tui serve`` runs it (`LiveReload` on an
`EmbeddedAgentServer` that holds its listening socket). Each edit appends a comment to
``agent.py`` and times until the ``reloaded`` event: the watcher's debounce, the graph
check, the old server's shutdown (it saves its data) and the new server's start up to
``/ok``. A thread made before the first edit must still be there after the last.

Two modes, side by side in each round (the order alternating) so machine noise hits both:

- **cold**: ``LiveReload(prewarm=False)``, a fresh graph check and server per reload;
- **standby**: the default: a prewarmed graph check and server wait for each reload.

Between edits it waits ``--pause`` seconds (a person's pace; the standbys are started
after each reload and need a few seconds to import; with ``--quick``, 8 s, and 2 s before a
cold reload, which has nothing to wait for). Prints best and median per mode, and
the ratio cold / standby of the medians.

Checked (exit status 1 if not): each edit ends in a ``reloaded`` event (within 120 s), the
reloaded server serves the graph, and the thread made before the first edit is still there.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.local.live_reload.reloader import ReloadEvent

from benchkit import add_options, arm, check

ROOT = Path(__file__).resolve().parents[1]
QUICK_PAUSE = 8.0  # standby: time for the standbys' imports (they start 3 s in)
QUICK_COLD_PAUSE = 2.0  # cold: nothing to wait for
RELOAD_TIMEOUT = 120.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=2, help="reloads per server start")
    parser.add_argument("--pause", type=float, default=10.0, help="seconds between edits")
    add_options(parser, quick=150, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.rounds, args.edits, args.pause = 1, 1, QUICK_PAUSE
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    os.environ["AGENT_TUI_HOME"] = str(home)  # before agent_tui reads its folders
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as installed

    times: dict[str, list[float]] = {"cold": [], "standby": []}
    for round_number in range(args.rounds):
        order = ["cold", "standby"] if round_number % 2 == 0 else ["standby", "cold"]
        for mode in order:
            project = home / f"{mode}-{round_number}"
            project.mkdir()
            shutil.copy(ROOT / "tests" / "graphs" / "counter.py", project / "agent.py")
            (project / "langgraph.json").write_text('{"graphs": {"counter": "./agent.py:graph"}}')
            pause = QUICK_COLD_PAUSE if args.quick and mode == "cold" else args.pause
            for edit, seconds in enumerate(reloads(project, mode, args.edits, pause)):
                times[mode].append(seconds)
                print(f"round {round_number + 1} {mode:8} edit {edit + 1}: {seconds:.2f} s")
    print()
    print(f"{'mode':8} {'best':>6} {'median':>7}  (seconds from save to reloaded)")
    for mode, values in times.items():
        print(f"{mode:8} {min(values):6.2f} {statistics.median(values):7.2f}")
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    print(f"cold / standby, medians: {medians['cold'] / medians['standby']:.1f}x")
    print("checked: every edit reloaded the server, which served the graph and kept the thread")
    shutil.rmtree(home, ignore_errors=True)
    return 0


def reloads(project: Path, mode: str, edits: int, pause: float) -> Iterator[float]:
    """Serve ``project`` with live reload, edit it ``edits`` times: seconds per reload."""
    import httpx

    from agent_tui.local import EmbeddedAgentServer
    from agent_tui.local.live_reload.reloader import LiveReload

    changed = threading.Condition()
    seen: list[ReloadEvent] = []

    def on_event(event: ReloadEvent) -> None:
        with changed:
            seen.append(event)
            changed.notify_all()

    server = EmbeddedAgentServer(
        project / "langgraph.json", data_dir=project / "data", hold_listener=True
    )
    with server:
        thread = httpx.post(server.url + "/threads", json={}, timeout=30).json()["thread_id"]
        watcher = LiveReload(server, on_event, prewarm=mode == "standby")
        watcher.start()
        check(watcher.wait_ready(), f"{mode}: the project is not watched: {watcher.error}")
        try:
            for edit in range(edits):
                time.sleep(pause)
                mark = len(seen)
                started = time.perf_counter()
                with (project / "agent.py").open("a") as agent:
                    agent.write(f"# edit {edit}\n")
                with changed:
                    ended = changed.wait_for(partial(_settled, seen, mark), RELOAD_TIMEOUT)
                seconds = time.perf_counter() - started
                last = seen[-1] if seen else None
                check(ended, f"{mode}: no reload within {RELOAD_TIMEOUT:g} s of an edit")
                check(
                    last is not None and last.kind == "reloaded",
                    f"{mode}: the edit ended in {last}, not a reload",
                )
                found = httpx.post(f"{server.url}/assistants/search", json={}, timeout=30)
                graphs = {assistant["graph_id"] for assistant in found.json()}
                check(graphs == {"counter"}, f"{mode}: the reloaded server serves {graphs}")
                yield seconds
            kept = httpx.get(f"{server.url}/threads/{thread}", timeout=30)
            check(kept.status_code == 200, f"{mode}: the thread was lost ({kept.status_code})")
        finally:
            watcher.stop()


def _settled(seen: list[ReloadEvent], mark: int) -> bool:
    return any(event.kind != "reloading" for event in seen[mark:])


if __name__ == "__main__":
    raise SystemExit(main())
