"""`check_graphs`: do a project's graphs import, and if not, which file and line broke.

Each project is written by the test into a temporary folder: a ``langgraph.json`` and
graph files that build a small `StateGraph`, or break in one way each. The check runs
the real ``build_check`` child process, as live reload does before a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

import pytest

from agent_tui.local.live_reload.graph_check import (
    GraphCheck,
    GraphProblem,
    check_graphs,
    check_graphs_async,
)

GOOD_GRAPH = '''\
"""A trivial graph: one node that adds one."""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    n: int


def inc(state: State) -> dict[str, int]:
    return {"n": state["n"] + 1}


builder = StateGraph(State)
builder.add_node("inc", inc)
builder.add_edge(START, "inc")
builder.add_edge("inc", END)
graph = builder.compile()
print("graph built")  # output at import must not confuse the check
'''

BROKEN_FILES = {
    "good.py": GOOD_GRAPH,
    "syntax.py": GOOD_GRAPH.replace("def inc(state: State)", "def inc(state: State"),
    "name_error.py": GOOD_GRAPH.replace(
        "graph = builder.compile()", "graph = builder.compile(checkpointer=undefined_saver)"
    ),
    "missing_module.py": GOOD_GRAPH.replace(
        "from typing import TypedDict", "from typing import TypedDict\n\nimport weather_sdk"
    ),
    "uses_helper.py": "from helpers import TOOLS\n\ngraph = TOOLS\n",
    "helpers.py": 'TOOLS = ["search"]\nTOOLS.append(load_tool("math"))\n',
    "misuse.py": GOOD_GRAPH.replace(
        'builder.add_edge("inc", END)', 'builder.add_edge("inc", "missing_node")'
    ),
    "vendored_caller.py": "import vendored\n\ngraph = vendored.make_graph()\n",
    "site-packages/vendored/__init__.py": (
        "def make_graph():\n    raise RuntimeError('vendored library failed')\n"
    ),
}

BROKEN_GRAPHS = {
    "good": "./good.py:graph",
    "syntax": "./syntax.py:graph",
    "name_error": "./name_error.py:graph",
    "missing_module": "./missing_module.py:graph",
    "helper": "./uses_helper.py:graph",
    "misuse": "./misuse.py:graph",
    "vendored": "./vendored_caller.py:graph",
    "no_variable": "./good.py:agent",
    "no_package": "weather_agents.graphs:graph",
}


def write_project(folder: Path, files: dict[str, str], config: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config, indent=2))
    return path


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that contains ``text``."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def problems_by_graph(check: GraphCheck) -> dict[str | None, GraphProblem]:
    return {problem.graph: problem for problem in check.problems}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GraphCheck]:
    """One project with a good graph and one broken in each way, checked once."""
    folder = tmp_path_factory.mktemp("broken") / "project"
    config = write_project(
        folder,
        BROKEN_FILES,
        # "./site-packages" stands for a virtual environment inside the project folder.
        {"dependencies": [".", "./site-packages"], "graphs": BROKEN_GRAPHS},
    )
    return folder, check_graphs(config)


def test_a_good_project_passes(tmp_path: Path) -> None:
    config = write_project(
        tmp_path, {"agent.py": GOOD_GRAPH}, {"graphs": {"agent": "./agent.py:graph"}}
    )
    check = check_graphs(config)
    assert (check.ok, check.problems, check.warnings) == (True, [], [])
    # What the graph imported from installed packages, for the next standbys.
    assert "langgraph.graph" in check.imports


def test_only_the_broken_graphs_are_reported(broken: tuple[Path, GraphCheck]) -> None:
    _, check = broken
    assert not check.ok
    assert set(problems_by_graph(check)) == set(BROKEN_GRAPHS) - {"good"}


def test_a_syntax_error_gives_its_file_and_line(broken: tuple[Path, GraphCheck]) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["syntax"]
    assert problem.file == folder / "syntax.py"
    assert problem.line == line_of(folder / "syntax.py", "def inc(state: State")
    assert problem.message.startswith("SyntaxError: ")


def test_a_name_error_at_import_gives_the_line_and_message(
    broken: tuple[Path, GraphCheck],
) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["name_error"]
    line = line_of(folder / "name_error.py", "undefined_saver")
    assert (problem.file, problem.line) == (folder / "name_error.py", line)
    assert problem.message == "NameError: name 'undefined_saver' is not defined"
    assert str(problem) == (
        f"name_error.py:{line}: NameError: name 'undefined_saver' is not defined (graph name_error)"
    )


def test_a_missing_module_gives_the_importing_line(broken: tuple[Path, GraphCheck]) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["missing_module"]
    assert problem.file == folder / "missing_module.py"
    assert problem.line == line_of(folder / "missing_module.py", "import weather_sdk")
    assert problem.message == "ModuleNotFoundError: No module named 'weather_sdk'"


def test_an_error_in_a_module_the_graph_imports_points_into_that_module(
    broken: tuple[Path, GraphCheck],
) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["helper"]
    assert (problem.file, problem.line) == (folder / "helpers.py", 2)
    assert problem.message == "NameError: name 'load_tool' is not defined"


def test_an_error_raised_inside_langgraph_points_at_the_graph_line_that_called_it(
    broken: tuple[Path, GraphCheck],
) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["misuse"]
    assert problem.file == folder / "misuse.py"
    # LangGraph checks the edges when the graph is compiled.
    assert problem.line == line_of(folder / "misuse.py", "builder.compile()")
    assert "missing_node" in problem.message


def test_installed_packages_inside_the_project_folder_are_not_its_code(
    broken: tuple[Path, GraphCheck],
) -> None:
    folder, check = broken
    problem = problems_by_graph(check)["vendored"]
    assert (problem.file, problem.line) == (folder / "vendored_caller.py", 3)
    assert problem.message == "RuntimeError: vendored library failed"


def test_a_wrong_reference_points_at_the_module_or_the_config(
    broken: tuple[Path, GraphCheck],
) -> None:
    folder, check = broken
    problems = problems_by_graph(check)
    assert problems["no_variable"].file == folder / "good.py"
    assert problems["no_variable"].message.startswith("AttributeError: ")
    assert "'agent'" in problems["no_variable"].message
    assert problems["no_package"].file == folder / "langgraph.json"
    assert problems["no_package"].message == "ModuleNotFoundError: No module named 'weather_agents'"


def test_an_invalid_config_gives_the_line_of_the_json_error(tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text('{\n  "graphs": {\n    "agent": "./agent.py:graph",,\n  }\n}\n')
    check = check_graphs(config)
    assert not check.ok
    (problem,) = check.problems
    assert (problem.graph, problem.file, problem.line) == (None, config, 3)
    assert "not valid JSON" in problem.message


def test_a_missing_env_file_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    config = write_project(
        tmp_path, {"agent.py": "graph = 1\n"}, {"graphs": {"a": "./agent.py:graph"}, "env": ".env"}
    )
    check = check_graphs(config)
    assert check.ok
    assert len(check.warnings) == 1 and ".env" in check.warnings[0]


def test_an_import_that_hangs_is_stopped_at_the_line_it_hangs_on(tmp_path: Path) -> None:
    config = write_project(
        tmp_path,
        {"fast.py": "graph = 1\n", "slow.py": "import time\n\ntime.sleep(600)\ngraph = 1\n"},
        {"graphs": {"fast": "./fast.py:graph", "slow": "./slow.py:graph"}},
    )
    check = check_graphs(config, timeout=4)
    (problem,) = check.problems
    assert (problem.graph, problem.file, problem.line) == ("slow", tmp_path / "slow.py", 3)
    assert problem.message.startswith("TimeoutError: ")


def test_a_child_that_ignores_the_time_limit_is_killed(tmp_path: Path) -> None:
    stuck = (
        "import signal, time\n\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "time.sleep(600)\n"
    )
    config = write_project(
        tmp_path,
        {"fast.py": "graph = 1\n", "stuck.py": stuck},
        {"graphs": {"fast": "./fast.py:graph", "stuck": "./stuck.py:graph"}},
    )
    check = check_graphs(config, timeout=3)
    assert not check.ok
    (problem,) = check.problems
    assert problem.graph == "stuck"
    assert problem.message == "TimeoutError: importing the graphs took over 3 s"


def test_a_crash_while_importing_names_the_graph(tmp_path: Path) -> None:
    config = write_project(
        tmp_path,
        {
            "typo.py": "graph = grpah\n",
            "crash.py": "import ctypes\n\nctypes.string_at(0)\n",
            "after.py": "graph = 1\n",
        },
        {
            "graphs": {
                "typo": "./typo.py:graph",
                "crash": "./crash.py:graph",
                "after": "./after.py:graph",
            }
        },
    )
    check = check_graphs(config)
    assert not check.ok
    typo, crash = check.problems
    assert (typo.graph, typo.line) == ("typo", 1)
    assert crash.graph == "crash"
    assert crash.message.startswith("the graph check was killed by SIGSEGV")


def test_a_thread_started_at_import_does_not_hold_up_the_answer(tmp_path: Path) -> None:
    code = "import threading, time\n\nthreading.Thread(target=time.sleep, args=(600,)).start()\ngraph = 1\n"
    config = write_project(tmp_path, {"agent.py": code}, {"graphs": {"a": "./agent.py:graph"}})
    check = check_graphs(config, timeout=20)
    assert (check.ok, check.problems, check.warnings) == (True, [], [])


def test_the_environment_reaches_the_graphs(tmp_path: Path) -> None:
    code = 'import os\n\nif os.environ["AGENT_MODEL"] != "small":\n    raise ValueError("no")\ngraph = 1\n'
    config = write_project(tmp_path, {"agent.py": code}, {"graphs": {"a": "./agent.py:graph"}})
    assert check_graphs(config, env={"AGENT_MODEL": "small"}).ok
    problem = check_graphs(config, env={"AGENT_MODEL": "large"}).problems[0]
    assert (problem.line, problem.message) == (4, "ValueError: no")


def test_a_python_that_does_not_exist_is_a_problem(tmp_path: Path) -> None:
    config = write_project(
        tmp_path, {"agent.py": "graph = 1\n"}, {"graphs": {"a": "./agent.py:graph"}}
    )
    check = check_graphs(config, python=str(tmp_path / "no-python"))
    assert not check.ok
    assert check.problems[0].message.startswith(f"cannot run {tmp_path / 'no-python'}")


async def test_the_async_check_gives_the_same_answers(tmp_path: Path) -> None:
    config = write_project(
        tmp_path,
        {"agent.py": GOOD_GRAPH, "typo.py": "graph = 1\nbroken = graph.nodes\n"},
        {"graphs": {"agent": "./agent.py:graph", "typo": "./typo.py:graph"}},
    )
    check = await check_graphs_async(config)
    assert not check.ok
    (problem,) = check.problems
    assert (problem.graph, problem.file, problem.line) == ("typo", tmp_path / "typo.py", 2)
    assert problem.message == "AttributeError: 'int' object has no attribute 'nodes'"


async def test_cancelling_the_async_check_kills_its_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = f"import os, time\n\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n"
    config = write_project(tmp_path, {"slow.py": code}, {"graphs": {"slow": "./slow.py:graph"}})
    task = asyncio.create_task(check_graphs_async(config))
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, "the check never imported the graph"
        await asyncio.sleep(0.05)
    pid = int(pid_file.read_text())
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_prewarmed_check_runs_the_project_as_it_is_when_told_to_go(tmp_path: Path) -> None:
    from agent_tui.local.live_reload.graph_check import CheckStandby
    from tests.support.processes import gone_within

    pid_file = tmp_path / "checked-by"
    note_pid = "import os\nopen(os.environ['PID_FILE'], 'w').write(str(os.getpid()))\n"
    config = write_project(
        tmp_path / "project",
        {"agent.py": note_pid + GOOD_GRAPH},
        {"graphs": {"g": "./agent.py:graph"}},
    )
    env = {"PID_FILE": str(pid_file)}
    standby = CheckStandby()
    try:
        standby.prepare(config, env=env)
        waiting = standby.pid
        assert waiting is not None
        # Broken after the standby started: it reads the project only when told to go.
        agent = config.parent / "agent.py"
        agent.write_text(agent.read_text().replace("graph = builder", "graph = undefined_name"))
        check = check_graphs(config, env=env, standby=standby)
        assert not check.ok and "undefined_name" in check.problems[0].message
        assert check.problems[0].line == line_of(agent, "undefined_name")
        assert int(pid_file.read_text()) == waiting, "the check did not run in the standby"
        assert standby.pid is None and gone_within([waiting], 10)

        # One started for other arguments is not used, and is not left running.
        standby.prepare(config, env={**env, "OTHER": "1"})
        other = standby.pid
        assert other is not None
        agent.write_text(note_pid + GOOD_GRAPH)
        assert check_graphs(config, env=env, standby=standby).ok
        assert int(pid_file.read_text()) not in (waiting, other)
        assert gone_within([other], 10)

        # Closing kills the one waiting, and no other is started.
        standby.prepare(config, env=env)
        last = standby.pid
        assert last is not None
    finally:
        standby.close()
    assert gone_within([last], 10)
    standby.prepare(config, env=env)
    assert standby.pid is None


SEES_TOMLKIT = """\
import os
import sys

open(os.environ["SEEN_FILE"], "w").write(str("tomlkit" in sys.modules))

import tomlkit  # an installed package no check imports by itself
from helpers import HELPED  # the project's own module

"""


def test_a_standby_imports_ahead_what_the_graphs_imported_at_the_last_check(
    tmp_path: Path,
) -> None:
    """A reload then imports only the project's own files, however heavy its packages."""
    from agent_tui.local.live_reload.graph_check import CheckStandby

    seen = tmp_path / "seen"
    config = write_project(
        tmp_path / "project",
        {"agent.py": SEES_TOMLKIT + GOOD_GRAPH, "helpers.py": "HELPED = True\n"},
        {"dependencies": ["."], "graphs": {"a": "./agent.py:graph", "b": "./agent.py:graph"}},
    )
    env = {"SEEN_FILE": str(seen)}
    first = check_graphs(config, env=env)
    assert first.ok, first.problems
    assert seen.read_text() == "False"
    assert "tomlkit" in first.imports
    # Not the project's own modules (nor the graph file, run under a "__" name).
    assert "helpers" not in first.imports
    assert not [name for name in first.imports if name.startswith("__")]

    standby = CheckStandby()
    try:
        for imports, expected in ((first.imports, "True"), ((), "False")):
            standby.prepare(config, env=env, imports=imports)
            check = check_graphs(config, env=env, standby=standby)
            assert check.ok, check.problems
            assert seen.read_text() == expected, f"imported ahead: {imports}"
            # What it imported ahead is still reported: the list does not shrink.
            assert "tomlkit" in check.imports
    finally:
        standby.close()


def test_a_standby_never_imports_langgraph_api_or_agent_tui_ahead() -> None:
    from agent_tui.local.standby import prewarmable

    names = ["tomlkit", "langgraph_api.config", "langgraph_runtime_inmem", "agent_tui.x"]
    assert prewarmable([*names, "os; rm -rf /", "../x"]) == ["tomlkit"]
