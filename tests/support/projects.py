"""Small projects for the tests that start a local server on one.

``tiny_config`` writes a ``langgraph.json`` with one graph (``tiny``, the test counter
graph) and nothing to install.

``tests/projects/weather`` is a ``langgraph.json`` whose graph imports ``tinyweather``, a
tiny local package (``packages/tinyweather``, built with hatchling) that agent-tui's own
environment does not have: the graph runs only in the project's environment. Installing
it needs no network (uv builds it with a backend from its cache).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.paths import GRAPHS, WEATHER_PROJECT

# A PEP 517 backend that never finishes (format it with the `pid_file` it writes its
# pid and its parent's to): a build is still running when the test stops it.
HANGING_BACKEND = """
import os
import threading
from pathlib import Path


def _hang(*args, **kwargs):
    Path({pid_file!r}).write_text(f"{{os.getpid()}} {{os.getppid()}}")
    threading.Event().wait()


get_requires_for_build_wheel = get_requires_for_build_editable = _hang
prepare_metadata_for_build_wheel = prepare_metadata_for_build_editable = _hang
build_wheel = build_editable = _hang
"""


def tiny_config(folder: Path) -> Path:
    """A ``langgraph.json`` in ``folder`` serving the test counter graph as ``tiny``."""
    config = folder / "langgraph.json"
    graph = GRAPHS / "counter.py"
    config.write_text(json.dumps({"graphs": {"tiny": f"{graph}:graph"}, "env": {}}))
    return config


def copy_weather_project(destination: Path) -> Path:
    """A private copy of the weather project (tests edit it); its ``langgraph.json``."""
    folder = destination / "weather"
    shutil.copytree(
        WEATHER_PROJECT, folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    return folder / "langgraph.json"


def add_dependency(config: Path, dependency: str) -> None:
    """Add a requirement string (or local path) to a project's ``dependencies``."""
    raw = json.loads(config.read_text())
    raw["dependencies"] = [*raw.get("dependencies", []), dependency]
    config.write_text(json.dumps(raw, indent=2))


def add_endless_dependency(config: Path) -> None:
    """Add a local package whose build never ends (a hatchling hook that waits), so uv is
    busy building the project's environment for as long as a test needs."""
    package = config.parent / "packages" / "endless"
    package.mkdir(parents=True)
    (package / "pyproject.toml").write_text(
        '[project]\nname = "endless"\nversion = "0.1.0"\n'
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        "[tool.hatch.build.targets.wheel]\nbypass-selection = true\n"
        "[tool.hatch.build.hooks.custom]\n"
    )
    (package / "hatch_build.py").write_text(
        "import time\n"
        "from hatchling.builders.hooks.plugin.interface import BuildHookInterface\n\n"
        "class Hook(BuildHookInterface):\n"
        "    def initialize(self, version, build_data):\n"
        "        time.sleep(600)\n"
    )
    add_dependency(config, "./packages/endless")


BROKEN_TOOLS = "import not_installed_anywhere\n"
"""``tools.py`` of `broken_project`: line 1 imports a module nobody has."""


def broken_project(folder: Path) -> Path:
    """A project whose graph ``agent`` (``agent.py``) imports its ``tools.py``, which
    imports a module nobody has: its server cannot start until ``tools.py`` is fixed."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "agent.py").write_text(
        "from typing import TypedDict\n\n"
        "from langgraph.graph import START, StateGraph\n\n"
        "import tools\n\n\n"
        "class State(TypedDict):\n"
        "    n: int\n\n\n"
        "def step(state: State) -> State:\n"
        "    return {'n': state['n'] + tools.STEP}\n\n\n"
        "builder = StateGraph(State)\n"
        "builder.add_node('step', step)\n"
        "builder.add_edge(START, 'step')\n"
        "graph = builder.compile()\n"
    )
    (folder / "tools.py").write_text(BROKEN_TOOLS)
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}, "env": {}}))
    return config


ENV_ECHO_GRAPH = """
import os
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    names: list[str]
    values: dict[str, str | None]


def read(state: State) -> State:
    return {"values": {name: os.environ.get(name) for name in state.get("names", [])}}


builder = StateGraph(State)
builder.add_node("read", read)
builder.add_edge(START, "read")
builder.add_edge("read", END)
graph = builder.compile()
"""


def env_echo_project(folder: Path, env: dict[str, str]) -> Path:
    """A project whose graph ``env_echo`` answers ``{"names": [...]}`` with the server's
    values of those environment variables (None: unset), and whose ``langgraph.json``
    ``env`` is ``env``. Its ``langgraph.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "env_echo.py").write_text(ENV_ECHO_GRAPH)
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"env_echo": "./env_echo.py:graph"}, "env": env}))
    return config


SIBLING_GRAPH = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from shared_words import greeting


class State(TypedDict, total=False):
    name: str
    answer: str


def greet(state: State) -> State:
    return {"answer": greeting(state.get("name", ""))}


builder = StateGraph(State)
builder.add_node("greet", greet)
builder.add_edge(START, "greet")
builder.add_edge("greet", END)
graph = builder.compile()
"""


def sibling_package_project(folder: Path) -> Path:
    """A monorepo: ``folder/app/langgraph.json`` (``"dependencies": [".", "../common"]``)
    whose graph ``greeter`` imports ``shared_words`` from the sibling folder
    ``folder/common``; ``folder/elsewhere`` is named by nothing. Its ``langgraph.json``."""
    app, common = folder / "app", folder / "common"
    (common / "shared_words").mkdir(parents=True)
    (common / "shared_words" / "__init__.py").write_text(
        "def greeting(name: str) -> str:\n    return f'hello {name} from common'\n"
    )
    (common / ".gitignore").write_text("*.log\n")
    (common / "debug.log").write_text("left out\n")
    (folder / "elsewhere").mkdir()
    (folder / "elsewhere" / "private.txt").write_text("not named by langgraph.json\n")
    app.mkdir()
    (app / "agent.py").write_text(SIBLING_GRAPH)
    config = app / "langgraph.json"
    config.write_text(
        json.dumps({"dependencies": [".", "../common"], "graphs": {"greeter": "./agent.py:graph"}})
    )
    return config
