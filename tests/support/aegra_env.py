"""Aegra's own environment for the tests: a Python >= 3.12 and a cached virtual environment.

Aegra 0.11.0 needs Python 3.12 or newer, while agent-tui's own environment may be older,
so Aegra runs from a virtual environment of its own, built once per machine with uv
(`aegra-api` and `aegra-cli` pinned) in the user cache folder and reused by every run:
``<user cache>/agent-tui-tests/aegra-0.11.0-py312``. uv cannot download an interpreter
here, so one must be on the machine: `find_python` looks under pyenv's versions, asks uv,
then tries ``python3.13``/``python3.12`` on PATH, and checks each by running it (a pyenv
shim that exists but does not run is no interpreter). No interpreter is a failure that
says what to install, never a skip.

The environment is built in a temporary folder beside its final place and renamed into
it when complete (a half-built one is never used), under an exclusive lock on a file
beside it, so parallel test workers build it once and the others wait and reuse it.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import platformdirs

AEGRA_VERSION = "0.11.0"
REQUIREMENTS = (f"aegra-api=={AEGRA_VERSION}", f"aegra-cli=={AEGRA_VERSION}")
MIN_PYTHON = (3, 12)
_COMPLETE = "agent-tui-complete"


class AegraSetupError(RuntimeError):
    """The Aegra test stack cannot be built on this machine (the message says why)."""


def find_python() -> Path:
    """The real path of a Python >= 3.12 interpreter that runs, or `AegraSetupError`.

    The oldest that fits first: 3.12 is the version Aegra's test stack was checked on.
    """
    for candidate in _candidates():
        if (real := _runs_as_new_python(candidate)) is not None:
            return real
    raise AegraSetupError(
        "Aegra needs Python >= 3.12 and none was found (looked under ~/.pyenv/versions, "
        "asked `uv python find`, tried python3.12/python3.13 on PATH): install one"
    )


def _candidates() -> Iterator[str]:
    pyenv = Path.home() / ".pyenv" / "versions"
    yield from sorted(
        glob.glob(str(pyenv / "3.1[2-9]*" / "bin" / "python3")),
        key=lambda path: [int(part) for part in re.findall(r"\d+", Path(path).parts[-3])],
    )
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        found = subprocess.run(
            ["uv", "python", "find", "--no-project", ">=3.12"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if found.returncode == 0 and found.stdout.strip():
            yield found.stdout.strip()
    yield from (path for name in ("python3.12", "python3.13") if (path := shutil.which(name)))


def _runs_as_new_python(candidate: str) -> Path | None:
    probe = "import sys; print(sys.version_info[0], sys.version_info[1]); print(sys.executable)"
    try:
        answer = subprocess.run(
            [candidate, "-c", probe], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = answer.stdout.split("\n")
    if answer.returncode != 0 or len(lines) < 2:
        return None
    major, minor = (int(part) for part in lines[0].split())
    if (major, minor) < MIN_PYTHON:
        return None
    return Path(os.path.realpath(lines[1].strip()))


def venv_folder(python: Path) -> Path:
    """Where the environment for ``python``'s version lives (it may not exist yet)."""
    version = _runs_version(python)
    cache = Path(platformdirs.user_cache_dir("agent-tui-tests"))
    return cache / f"aegra-{AEGRA_VERSION}-py{version}"


def _runs_version(python: Path) -> str:
    answer = subprocess.run(
        [str(python), "-c", "import sys; print(f'{sys.version_info[0]}{sys.version_info[1]}')"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return answer.stdout.strip()


def aegra_venv() -> Path:
    """The cached virtual environment with Aegra installed, built first if missing."""
    python = find_python()
    folder = venv_folder(python)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.with_name(folder.name + ".lock")):
        if (folder / _COMPLETE).is_file() and (folder / "bin" / "aegra").is_file():
            return folder
        shutil.rmtree(folder, ignore_errors=True)  # an incomplete one from an older layout
        building = Path(tempfile.mkdtemp(prefix=folder.name + ".building-", dir=folder.parent))
        try:
            _build(python, building)
            (building / _COMPLETE).write_text(" ".join(REQUIREMENTS) + "\n")
            building.rename(folder)
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return folder


def _build(python: Path, folder: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")
    }
    steps = [
        # Relocatable: the scripts find their interpreter relative to themselves, so the
        # folder still works once renamed to its final place.
        ["uv", "venv", "--quiet", "--relocatable", "--python", str(python), str(folder)],
        [
            "uv",
            "pip",
            "install",
            "--quiet",
            "--python",
            str(folder / "bin" / "python"),
            *REQUIREMENTS,
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise AegraSetupError(
                f"building Aegra's environment failed: {' '.join(step)}\n{done.stderr[-3000:]}"
            )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
