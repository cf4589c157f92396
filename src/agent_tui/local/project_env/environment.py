"""The project's environment: what its ``langgraph.json`` declares, installed with uv.

A real graph imports what its project declares (a model provider, a vector store, its own
package). The embedded server therefore runs on an interpreter whose environment has:

- the project's dependencies: ``langgraph.json`` ``dependencies`` (``"."`` and other local
  folders — a folder with a ``pyproject.toml`` that can be built, or a ``setup.py``, is
  installed editable so edits are live; one whose ``pyproject.toml`` cannot be built gets
  its ``[project] dependencies``; one with a ``requirements.txt`` gets that file — and
  requirement strings), plus the ``pyproject.toml`` / ``requirements.txt`` beside
  ``langgraph.json`` even when ``"."`` is not listed;
- what the server needs (`server_versions.server_requirements`: langgraph-api and its
  runtime within the range agent-tui supports, langgraph's SQLite saver), resolved
  together with the project's own by uv, as ``langgraph dev``'s environment would be.
  Nothing else of agent-tui's environment holds the project: a project may need an older
  httpx or cryptography than agent-tui runs, or a langgraph-api of an older supported
  series (it runs that one). Outside the range, the build fails saying which releases
  agent-tui supports.

The environment is a virtual environment in the user cache folder, one per project, on
agent-tui's Python (or ``python_version``'s when uv can provide it; otherwise agent-tui's,
and a warning says so). Only the ``agent_tui`` package is made importable in it (a
``.pth`` file), for the server process and the graph check it runs.

It is rebuilt only when what it was built from changes: the hash of the dependency
declarations (``dependencies`` and ``python_version``; not the graphs or ``env``), the
dependency files' contents, agent-tui's version and interpreter is
kept in the environment, and compared at each start (a few file reads). A project with
nothing to install (the bundled demo graphs) runs on agent-tui's interpreter directly.

Here is the plan (`plan_environment`, its key, `is_current`) and `ensure_environment`,
which builds when the plan says so. The plan's record is `plan`'s and running uv is
`builder`'s; their public names (the plan, the error, the progress record, `find_uv`)
are importable from here too.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import tomllib
from pathlib import Path
from typing import TypeVar

import platformdirs

from agent_tui.local.langgraph_config import DEMO_CONFIG, LangGraphConfig
from agent_tui.local.project_env.builder import (
    AGENT_TUI_PTH_FILE,
    BUILD_TIMEOUT,
    MARKER_FILE,
    BuildProgress,
    EnvironmentBuilder,
    EnvironmentBuildError,
    ProgressCallback,
    build_lock,
    find_uv,
)
from agent_tui.local.project_env.plan import EnvironmentPlan
from agent_tui.local.project_files import read_project_text

__all__ = [
    "AGENT_TUI_PTH_FILE",
    "BUILD_TIMEOUT",
    "DEPENDENCY_FILES",
    "MARKER_FILE",
    "BuildProgress",
    "EnvironmentBuildError",
    "EnvironmentBuilder",
    "EnvironmentPlan",
    "ProgressCallback",
    "ensure_environment",
    "environments_dir",
    "find_uv",
    "is_current",
    "plan_environment",
]

DEPENDENCY_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")

_T = TypeVar("_T")


def environments_dir() -> Path:
    """Where project environments live: the user cache folder (``AGENT_TUI_HOME/cache``)."""
    home = os.environ.get("AGENT_TUI_HOME")
    root = Path(home) / "cache" if home else Path(platformdirs.user_cache_dir("agent-tui"))
    path = root / "envs"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def plan_environment(config: LangGraphConfig, env_dir: Path | None = None) -> EnvironmentPlan:
    """What ``config``'s project needs installed (``is_empty`` when nothing)."""
    from agent_tui.local.server_paths import server_key

    requirements: list[str] = []
    editables: list[Path] = []
    requirement_files: list[Path] = []
    # Not langgraph.json itself: what it says about installing (the dependencies,
    # python_version) is in the plan's key, and an edit to its graphs or env must not
    # rebuild the environment.
    sources: list[Path] = []
    folders: list[Path] = []
    for dependency in config.declared_dependencies:
        if not dependency.strip():
            continue
        dependency = dependency.strip()
        if _is_local_path(dependency):
            target = (config.folder / dependency).resolve()
            if target.is_file() and target.suffix == ".txt":
                requirement_files.append(target)
                sources.append(target)
            elif target.is_dir():
                folders.append(target)
        else:
            requirements.append(dependency)
    if config.folder not in folders and config.path != DEMO_CONFIG.resolve():
        folders.insert(0, config.folder)  # the project's own pyproject.toml counts too
    for folder in folders:
        kind, extra = _local_folder(folder)
        sources.extend(folder / name for name in DEPENDENCY_FILES if (folder / name).is_file())
        if kind == "editable":
            editables.append(folder)
        elif kind == "requirements":
            requirement_files.append(folder / "requirements.txt")
        requirements.extend(extra)
    own = f"{sys.version_info.major}.{sys.version_info.minor}"
    wanted = config.python_version
    return EnvironmentPlan(
        config_path=config.path,
        env_dir=env_dir or environments_dir() / server_key(config.path),
        requirements=_unique(requirements),
        editables=_unique(editables),
        requirement_files=_unique(requirement_files),
        python_version=wanted if wanted and wanted != own else None,
        sources=_unique(sources),
    )


def is_current(plan: EnvironmentPlan) -> bool:
    """Whether the environment exists and was built from exactly what the plan says."""
    try:
        marker = json.loads((plan.env_dir / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("key") == plan.key() and plan.python.exists()


def ensure_environment(
    config: LangGraphConfig,
    progress: ProgressCallback | None = None,
    *,
    env_dir: Path | None = None,
    cancel: threading.Event | None = None,
) -> str:
    """The interpreter to run ``config``'s server with, building its environment if needed.

    Returns ``sys.executable`` when the project has nothing to install. Raises
    `EnvironmentBuildError` (with uv's output) when the build fails, or is stopped by
    setting ``cancel``.
    """
    plan = plan_environment(config, env_dir)
    if plan.is_empty:
        return sys.executable
    if is_current(plan):
        return str(plan.python)
    with build_lock(plan.env_dir):
        if not is_current(plan):  # another process may have built it meanwhile
            EnvironmentBuilder(plan, progress, cancel=cancel).build()
    return str(plan.python)


# -- helpers ------------------------------------------------------------------------------


def _is_local_path(dependency: str) -> bool:
    return dependency.startswith((".", "/", "~")) or (
        os.name == "nt" and re.match(r"^[A-Za-z]:[\\/]", dependency) is not None
    )


def _local_folder(folder: Path) -> tuple[str, list[str]]:
    """How to install a local folder: ("editable" | "requirements" | "path", requirements)."""
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(read_project_text(pyproject))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            data = {}
        project = data.get("project")
        buildable = "build-system" in data or (folder / "setup.py").is_file()
        if isinstance(project, dict) and buildable:
            return "editable", []
        if isinstance(project, dict):
            # A uv "virtual" project (no build system): its dependencies, its code on sys.path.
            deps = project.get("dependencies", [])
            extra = [str(d) for d in deps] if isinstance(deps, list) else []
            if (folder / "requirements.txt").is_file():
                return "requirements", extra
            return "path", extra
    if (folder / "setup.py").is_file():
        return "editable", []
    if (folder / "requirements.txt").is_file():
        return "requirements", []
    return "path", []


def _unique(items: list[_T]) -> list[_T]:
    return list(dict.fromkeys(items))
