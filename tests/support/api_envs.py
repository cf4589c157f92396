"""agent-tui on another langgraph-api release: a cached virtual environment per release,
for the server's tests at each end of the supported range (`agent_tui.server.supported`).

Each environment has this Python, the dependencies ``pyproject.toml`` lists with
langgraph-api and its runtime held to one release (uv's ``--override``, so a release
outside the range installs too), and a ``.pth`` file that makes this checkout's ``src``
importable: its interpreter runs ``python -m agent_tui.server.main`` and ``python -m
agent_tui serve`` as agent-tui installed with that release would, and the processes
those start (the server a ``serve`` starts runs on ``sys.executable``) find agent-tui
without an environment variable. It is built with uv from the package registry uv
already uses (its cache makes that quick) and kept under a name that says what it holds:
``<user cache>/agent-tui-tests/langgraph-api-0.14.7-py311-<hash>``, the hash of
the dependencies, the interpreter and the ``src`` folder (`cached_venvs`: built once, under
a lock, renamed into place once complete).

Import `api_env` into a test module to run each of its tests on `OLDEST` and on
`newest()`; `build_api_env` gives any release's environment (`TOO_OLD`).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

import agent_tui
from agent_tui.local.server_environment import server_environment
from tests.support.cached_venvs import (
    cache_folder,
    cached_venv,
    forget_unused,
    new_venv,
    uv_steps,
)

SRC = Path(agent_tui.__file__).resolve().parents[1]
PYPROJECT = SRC.parent / "pyproject.toml"


@dataclass(frozen=True)
class ApiRelease:
    """A langgraph-api release and the langgraph-runtime-inmem release it runs with."""

    api: str
    runtime: str

    def pins(self) -> list[str]:
        return [f"langgraph-api=={self.api}", f"langgraph-runtime-inmem=={self.runtime}"]


OLDEST = ApiRelease("0.14.7", "0.34.4")
"""The newest release of the oldest supported series."""
TOO_OLD = ApiRelease("0.13.8", "0.33.6")
"""The newest release of the series before the range."""


def newest() -> ApiRelease:
    """The release agent-tui's own environment has (uv resolves the newest of the range)."""
    return ApiRelease(
        metadata.version("langgraph-api"), metadata.version("langgraph-runtime-inmem")
    )


@dataclass(frozen=True)
class ApiEnv:
    release: ApiRelease
    folder: Path

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"

    def run(self, code: str) -> str:
        """Run ``code`` on this environment's Python; its output (a failure raises)."""
        done = subprocess.run(
            [str(self.python), "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env=server_environment(os.environ),  # as a server of agent-tui's gets it
            check=False,
        )
        assert done.returncode == 0, f"{code}\n--- failed on {self.release}:\n{done.stderr}"
        return done.stdout


def build_api_env(release: ApiRelease) -> ApiEnv:
    """``release``'s environment, built first unless it is in the cache."""
    requirements = _project_dependencies()
    key = {
        "release": release.pins(),
        "dependencies": requirements,
        "python": os.path.realpath(sys.executable),
        "base": sys.base_prefix,
        "src": str(SRC),
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    python_tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    name = f"langgraph-api-{release.api}-{python_tag}-{digest}"

    def build(folder: Path) -> None:
        python = folder / "bin" / "python"
        uv_steps([new_venv(sys.executable, folder)], f"langgraph-api {release.api}'s environment")
        # The lists beside the interpreter: uv reads them from files.
        wanted, overrides = folder / "requirements.txt", folder / "overrides.txt"
        wanted.write_text("\n".join(requirements) + "\n")
        overrides.write_text("\n".join(release.pins()) + "\n")
        install = ["uv", "pip", "install", "--quiet", "--python", str(python)]
        uv_steps(
            [[*install, "-r", str(wanted), "--override", str(overrides)]],
            f"langgraph-api {release.api}'s environment",
        )
        (_site_packages(python) / "agent_tui_src.pth").write_text(f"{SRC}\n")

    folder = cached_venv(
        cache_folder() / name, build, usable=lambda folder: (folder / "bin" / "python").exists()
    )
    forget_unused("langgraph-api-*")
    return ApiEnv(release, folder)


def _project_dependencies() -> list[str]:
    """``pyproject.toml``'s dependencies (the ranges: the release pins override them)."""
    with PYPROJECT.open("rb") as file:
        dependencies: list[str] = tomllib.load(file)["project"]["dependencies"]
    return dependencies


def _site_packages(python: Path) -> Path:
    """The environment's site-packages folder (laid out as this interpreter's)."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    return python.parent.parent / purelib.relative_to(sys.prefix)


def _release_id(release: ApiRelease) -> str:
    return f"langgraph-api-{release.api}"


@pytest.fixture(scope="session", params=[OLDEST, newest()], ids=_release_id)
def api_env(request: pytest.FixtureRequest) -> ApiEnv:
    """agent-tui on the oldest, then the newest, release of the supported range."""
    release: ApiRelease = request.param
    return build_api_env(release)
