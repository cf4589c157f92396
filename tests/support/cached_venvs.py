"""Virtual environments the tests build once per machine and reuse: Aegra's
(`aegra_env`), and agent-tui's server on other langgraph-api releases (`api_envs`).

Each lives in the user cache folder (``<user cache>/agent-tui-tests/<name>``), under a name
that says everything it was built from, so a change makes a new one rather than reusing a
stale one. It is built in a temporary folder beside its final place and renamed into it when
complete (a half-built one is never used), under an exclusive lock on a file beside it, so
parallel test workers (or two test runs) build it once and the others wait and reuse it.
`forget_unused` removes those no test has used for two weeks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import platformdirs

COMPLETE = "agent-tui-complete"
"""A file written last in a built environment: without it, the folder is not one."""


class VenvBuildError(RuntimeError):
    """An environment could not be built (the message ends with uv's words)."""


def cache_folder() -> Path:
    return Path(platformdirs.user_cache_dir("agent-tui-tests"))


def cached_venv(
    folder: Path, build: Callable[[Path], None], *, usable: Callable[[Path], bool]
) -> Path:
    """``folder``, built first by ``build(temporary folder)`` unless a complete one whose
    ``usable(folder)`` holds is there already."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.with_name(folder.name + ".lock")):
        if (folder / COMPLETE).is_file() and usable(folder):
            (folder / COMPLETE).touch()  # in use: not `forget_unused`
            return folder
        shutil.rmtree(folder, ignore_errors=True)  # an incomplete one, or an older layout
        building = Path(tempfile.mkdtemp(prefix=folder.name + ".building-", dir=folder.parent))
        try:
            build(building)
            (building / COMPLETE).write_text(folder.name + "\n")
            building.rename(folder)
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return folder


def forget_unused(pattern: str, days: float = 14) -> None:
    """Remove the environments named like ``pattern`` (a glob) that no test has used for
    ``days`` days (their dependencies or checkout changed since): one that is being built
    or used now keeps its lock, and stays."""
    too_old = time.time() - days * 86400
    for folder in cache_folder().glob(pattern):
        marker = folder / COMPLETE
        if folder.suffix == ".lock" or not marker.is_file() or marker.stat().st_mtime > too_old:
            continue
        with (
            contextlib.suppress(BlockingIOError),
            _locked(folder.with_name(folder.name + ".lock"), wait=False),
        ):
            shutil.rmtree(folder, ignore_errors=True)


def uv_steps(steps: Sequence[Sequence[str]], what: str) -> None:
    """Run each uv command in turn (outside any project environment); `VenvBuildError`
    naming ``what`` at the first that fails."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")
    }
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise VenvBuildError(f"building {what} failed: {' '.join(step)}\n{done.stderr[-3000:]}")


def new_venv(python: Path | str, folder: Path) -> list[str]:
    """The uv command making a virtual environment of ``python`` in ``folder``.

    Relocatable: its scripts find their interpreter relative to themselves, so the folder
    still works once renamed to its final place.
    """
    return ["uv", "venv", "--quiet", "--relocatable", "--python", str(python), str(folder)]


@contextlib.contextmanager
def _locked(path: Path, *, wait: bool = True) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
