"""Aegra's own environment for the tests: a Python >= 3.12 and a cached virtual environment.

Aegra 0.11.0 needs Python 3.12 or newer, while agent-tui's own environment may be older,
so Aegra runs from a virtual environment of its own, built once per machine with uv
(`aegra-api` and `aegra-cli` pinned) in the user cache folder and reused by every run:
``<user cache>/agent-tui-tests/aegra-0.11.0-py312``. uv cannot download an interpreter
here, so one must be on the machine: `find_python` looks under pyenv's versions, asks uv,
then tries ``python3.13``/``python3.12`` on PATH, and checks each by running it (a pyenv
shim that exists but does not run is no interpreter). No interpreter is a failure that
says what to install, never a skip.

It is built and reused as every cached test environment is (`cached_venvs`: renamed
into place once complete, under a lock, so parallel workers build it once).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.support.cached_venvs import (
    VenvBuildError,
    cache_folder,
    cached_venv,
    new_venv,
    uv_steps,
)

AEGRA_VERSION = "0.11.0"
REQUIREMENTS = (f"aegra-api=={AEGRA_VERSION}", f"aegra-cli=={AEGRA_VERSION}")
MIN_PYTHON = (3, 12)


class AegraSetupError(VenvBuildError):
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
    return cache_folder() / f"aegra-{AEGRA_VERSION}-py{_runs_version(python)}"


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

    def build(folder: Path) -> None:
        install = ["uv", "pip", "install", "--quiet", "--python", str(folder / "bin" / "python")]
        uv_steps([new_venv(python, folder), [*install, *REQUIREMENTS]], "Aegra's environment")

    return cached_venv(
        venv_folder(python), build, usable=lambda folder: (folder / "bin" / "aegra").is_file()
    )
