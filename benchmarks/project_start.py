"""Start-up of a project with its own environment, against the bundled demo graphs.

    uv run python benchmarks/project_start.py [--rounds 5]
    uv run python benchmarks/project_start.py --quick   # 1 round, checked (seconds)

What the app does before it can connect, headless, through the app's own code
(`LocalSession.url`, live reload on as `agent-tui` has it): read ``langgraph.json``, make sure
the project's environment is current (`ensure_environment`), start the embedded server on it,
wait for ``/ok``, and for a project also start watching its files. Two projects, side by side
in each round (the order alternating) so machine noise hits both:

- **demo**: the bundled demo graphs (nothing to install: agent-tui's own interpreter, no
  watching);
- **project**: a copy of ``tests/projects/weather`` (its graph imports a local package
  installed in its environment), after a first build that is timed separately.

It prints the first build, best and median seconds for each, and per round the difference
(project - demo: what an unchanged project adds to every start) and the ratio, as medians.

Checked (exit status 1 if not): every start gives a server that serves its project's graphs
(`chat` and `counter` for the demo, `weather` for the project). `--quick` runs one round after a
warm-up start of the demo alone, with the bytecode caches where Python keeps them (not a folder
of its own, which only a full warm-up round would fill).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchkit import add_options, arm, check

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = {"demo": {"chat", "counter"}, "project": {"weather"}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    add_options(parser, quick=180, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.rounds = 1
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    os.environ["AGENT_TUI_HOME"] = str(home)  # before agent_tui reads its folders
    # Bytecode caches, as an installed app has from its second start on (the server
    # processes inherit this); the warm-up round below fills them. --quick has no warm-up
    # round: it uses the caches where Python keeps them (filled by any earlier run).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if not args.quick:
        os.environ["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    import httpx

    from agent_tui.local import DEMO_CONFIG, load_langgraph_config
    from agent_tui.local.project_env.environment import ensure_environment
    from agent_tui.local.session import LocalSession
    from agent_tui.settings.target import LocalServer

    project = home / "weather"
    shutil.copytree(ROOT / "tests" / "projects" / "weather", project)
    config_path = project / "langgraph.json"

    started = time.perf_counter()
    ensure_environment(load_langgraph_config(config_path))
    first_build = time.perf_counter() - started

    class NoScreen:
        def follow(self, heading: str, log_source: object = None) -> None:
            pass

        def show_build(self, text: str, done: int, total: int | None) -> None:
            pass

    def start(name: str, config: Path, data: Path) -> tuple[float, float]:
        began = time.perf_counter()
        ensure_environment(load_langgraph_config(config))
        env_check = time.perf_counter() - began
        session = LocalSession(
            on_loop=lambda function, *args: function(*args),
            on_reload=lambda event: None,
            on_status=lambda text: None,
            reload=True,
        )
        began = time.perf_counter()
        try:
            url = asyncio.run(session.url(LocalServer(config, data), NoScreen()))
            took = time.perf_counter() - began
            found = httpx.post(f"{url}/assistants/search", json={"limit": 100}, timeout=30)
            graphs = {assistant["graph_id"] for assistant in found.json()}
            check(graphs == GRAPHS[name], f"{name}: the server serves {graphs}, not {GRAPHS[name]}")
            return env_check, took
        finally:
            session.stop()

    # Warm-up: the first start in a process also pays for imports in this process (and,
    # without --quick, fills the bytecode caches): the demo alone with --quick.
    warm_up = [("demo", DEMO_CONFIG)] + ([] if args.quick else [("project", config_path)])
    for name, config in warm_up:
        start(name, config, home / f"data-{name}")
    timings: dict[str, list[tuple[float, float]]] = {"demo": [], "project": []}
    for round_ in range(args.rounds):
        order = ["demo", "project"] if round_ % 2 == 0 else ["project", "demo"]
        for name in order:
            config = DEMO_CONFIG if name == "demo" else config_path
            timings[name].append(start(name, config, home / f"data-{name}"))
    shutil.rmtree(home, ignore_errors=True)

    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds, side by side")
    print(f"first build of the project's environment: {first_build:.2f} s")
    print(f"{'':10}{'env check':>12}{'best s':>10}{'median s':>10}")
    for name, rows in timings.items():
        checks = [row[0] for row in rows]
        totals = [row[1] for row in rows]
        print(
            f"{name:10}{statistics.median(checks) * 1000:>10.0f}ms"
            f"{min(totals):>10.2f}{statistics.median(totals):>10.2f}"
        )
    pairs = list(zip(timings["project"], timings["demo"], strict=True))
    added = statistics.median(project[1] - demo[1] for project, demo in pairs)
    ratio = statistics.median(project[1] / demo[1] for project, demo in pairs)
    print(f"project - demo, median of the rounds: {added:+.2f} s (budget +1.00 s)")
    print(f"project / demo, median of the rounds: {ratio:.2f}x")
    print("checked: every start served its project's graphs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
