"""Start-up of a project with its own environment, against the bundled demo graphs.

    uv run python benchmarks/project_start.py [--rounds 5]

What the app does before its first screen, headless: read ``langgraph.json``, make sure the
project's environment is current (`ensure_environment`), start the embedded server on it
and wait for ``/ok``. Two projects, interleaved round by round so machine noise hits both:

- **demo**: the bundled demo graphs (nothing to install: agent-tui's own interpreter);
- **project**: a copy of ``tests/projects/weather`` (its graph imports a local package
  installed in its environment), after a first build that is timed separately.

It prints the first build, then best and median seconds for each and the difference
(project - demo), which is what an unchanged project adds to every start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    os.environ["AGENT_TUI_HOME"] = str(home)  # before agent_tui reads its folders
    from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer, env_plan, load_langgraph_config
    from agent_tui.local.project_env import ensure_environment

    project = home / "weather"
    shutil.copytree(ROOT / "tests" / "projects" / "weather", project)
    config_path = project / "langgraph.json"

    started = time.perf_counter()
    ensure_environment(load_langgraph_config(config_path))
    first_build = time.perf_counter() - started

    def start(config: Path, data: Path) -> tuple[float, float]:
        # As in a new app process: the installed packages are read again.
        env_plan._stack_closure.cache_clear()
        began = time.perf_counter()
        python = ensure_environment(load_langgraph_config(config))
        prepared = time.perf_counter() - began
        server = EmbeddedAgentServer(config, data_dir=data, log_file=data / "log", python=python)
        server.start()
        try:
            server.wait_until_ready(120)
        finally:
            server.stop()
        return prepared, time.perf_counter() - began

    timings: dict[str, list[tuple[float, float]]] = {"demo": [], "project": []}
    for round_ in range(args.rounds):
        order = ["demo", "project"] if round_ % 2 == 0 else ["project", "demo"]
        for name in order:
            config = DEMO_CONFIG if name == "demo" else config_path
            timings[name].append(start(config, home / f"data-{name}"))
    shutil.rmtree(home, ignore_errors=True)

    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds, interleaved")
    print(f"first build of the project's environment: {first_build:.2f} s")
    print(f"{'':10}{'env check':>12}{'best s':>10}{'median s':>10}")
    for name, rows in timings.items():
        checks = [row[0] for row in rows]
        totals = [row[1] for row in rows]
        print(
            f"{name:10}{statistics.median(checks) * 1000:>10.0f}ms"
            f"{min(totals):>10.2f}{statistics.median(totals):>10.2f}"
        )
    demo = statistics.median(row[1] for row in timings["demo"])
    proj = statistics.median(row[1] for row in timings["project"])
    print(f"project - demo (median): {proj - demo:+.2f} s; ratio {proj / demo:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
