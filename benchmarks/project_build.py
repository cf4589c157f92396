"""The first build of a project's environment, against what a user of ``langgraph dev``
does for the same project, side by side.

    uv run python benchmarks/project_build.py [--rounds 3]
    uv run python benchmarks/project_build.py --quick   # 1 round, no warm-up, checked

A template-sized project (``langgraph.json`` naming ``"."``, a ``pyproject.toml`` built by
hatchling asking for LangGraph and python-dotenv, its graph in ``src/agent``), built from
nothing in each round two ways, the order alternating:

- **agent-tui**: `ensure_environment` into an empty folder, as the app's start-up screen
  does (a virtual environment, the project installed editable with what the server needs,
  one resolution by uv);
- **langgraph dev**: ``uv venv`` and ``uv pip install -e . "langgraph-cli[inmem]"``, the
  environment ``langgraph dev`` would run the same project in.

uv's cache is warm for both (a first build of each, untimed; not with ``--quick``, whose
figures are then only as good as the cache it finds). Then, for the built
project, the check every later start makes (`ensure_environment` finding it current).

It prints each build's seconds (median), the ratio agent-tui / langgraph dev (the median
of the rounds' ratios) and the check's milliseconds. Checked (exit status 1 if not): both
environments import the project's graph; without ``--quick`` also the budget: the build
within 1.3x, the check within 0.2 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchkit import add_options, arm, check

BUILD_BUDGET = 1.3
CHECK_BUDGET = 0.2

PYPROJECT = """\
[project]
name = "agent"
version = "0.0.1"
requires-python = ">=3.11"
dependencies = ["langgraph>=1.0", "python-dotenv>=1.0"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/agent"]
"""
GRAPH = """\
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    changeme: str


def call_model(state: State) -> State:
    return {"changeme": "output from call_model"}


graph = StateGraph(State).add_node("call_model", call_model)
graph = graph.add_edge(START, "call_model").add_edge("call_model", END).compile(name="New Graph")
"""
LANGGRAPH_JSON = '{"dependencies": ["."], "graphs": {"agent": "./src/agent/graph.py:graph"}}'


def template_project(folder: Path) -> Path:
    (folder / "src" / "agent").mkdir(parents=True)
    (folder / "src" / "agent" / "__init__.py").write_text("")
    (folder / "src" / "agent" / "graph.py").write_text(GRAPH)
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "langgraph.json").write_text(LANGGRAPH_JSON)
    return folder / "langgraph.json"


def graph_imports(python: Path | str) -> bool:
    code = "import agent.graph, langgraph_api"
    return subprocess.run([str(python), "-c", code], capture_output=True).returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    add_options(parser, quick=300, full=1800)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.rounds = 1
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    os.environ["AGENT_TUI_HOME"] = str(home)
    from agent_tui.local import load_langgraph_config
    from agent_tui.local.project_env.environment import ensure_environment, find_uv

    uv = find_uv()
    config_path = template_project(home / "project")
    config = load_langgraph_config(config_path)
    quiet = {**os.environ, "UV_NO_PROGRESS": "1"}
    quiet.pop("VIRTUAL_ENV", None)

    def agent_tui(env: Path) -> Path:
        return Path(ensure_environment(config, env_dir=env))

    def langgraph_dev(env: Path) -> Path:
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(env)], check=True)
        python = env / "bin" / "python"
        install = [
            uv,
            "pip",
            "install",
            "-q",
            "--python",
            str(python),
            "-e",
            str(config_path.parent),
        ]
        subprocess.run([*install, "langgraph-cli[inmem]"], check=True, env=quiet)
        return python

    ways = {"agent-tui": agent_tui, "langgraph dev": langgraph_dev}
    # Warm uv's cache for both (untimed); --quick checks the builds, not their times, so
    # its round is the first build of each.
    for name, build in ways.items() if not args.quick else ():
        python = build(home / f"warm-{name.replace(' ', '-')}")
        check(graph_imports(python), f"{name}: the environment does not import the graph")
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(args.rounds):
        order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
        for name in order:
            env = home / f"env-{round_}-{name.replace(' ', '-')}"
            began = time.perf_counter()
            python = ways[name](env)
            seconds[name].append(time.perf_counter() - began)
            check(graph_imports(python), f"{name}: the environment does not import the graph")
            if not args.quick:
                shutil.rmtree(env, ignore_errors=True)
    checks = []
    built = home / ("env-0-agent-tui" if args.quick else "warm-agent-tui")
    for _ in range(2 if args.quick else 5):
        began = time.perf_counter()
        agent_tui(built)
        checks.append(time.perf_counter() - began)
    shutil.rmtree(home, ignore_errors=True)

    cache = "uv cache as found" if args.quick else "uv cache warm"
    print(f"Python {sys.version.split()[0]}, {args.rounds} round(s), side by side, {cache}")
    print(f"{'first build':16}{'median s':>10}")
    for name, rows in seconds.items():
        print(f"{name:16}{statistics.median(rows):>10.2f}")
    ratios = [a / b for a, b in zip(seconds["agent-tui"], seconds["langgraph dev"], strict=True)]
    ratio = statistics.median(ratios)
    check_seconds = statistics.median(checks)
    print(f"agent-tui / langgraph dev: {ratio:.2f}x (budget {BUILD_BUDGET:.1f}x)")
    print(f"an unchanged project's check: {check_seconds * 1000:.1f} ms (budget 200 ms)")
    if not args.quick:
        check(ratio <= BUILD_BUDGET, f"the first build takes {ratio:.2f}x langgraph dev's")
        check(check_seconds <= CHECK_BUDGET, f"the check takes {check_seconds:.2f} s")
    print("checked: both environments import the project's graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
