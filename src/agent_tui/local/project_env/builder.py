"""Building a project's environment with uv, as `environment` plans it.

`EnvironmentBuilder` creates the virtual environment (``uv venv``, beside the current one,
which it replaces only once the build succeeded), makes the ``agent_tui`` package
importable in it (a ``.pth`` file), installs the project's requirements with what the
server needs (``uv pip install``, one resolution), and writes the
marker that `environment.is_current` reads. uv's output is followed line by line and
turned into progress (a count of packages once uv has resolved them); when uv fails, its
last lines are in the `EnvironmentBuildError`.

This module also holds what both sides share (the error, the progress record, the marker
file's name), so that `environment` imports from here and never the other way round.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import agent_tui
from agent_tui.local.child_processes import NEW_SESSION, clean_line, kill_group
from agent_tui.local.project_env.plan import EnvironmentPlan
from agent_tui.local.server_environment import without_own_keys
from agent_tui.local.server_versions import RANGES, server_requirements, supported_words
from agent_tui.settings.atomic_file import write_text_atomically

MARKER_FILE = "agent-tui-env.json"
"""In the environment folder: the key of what it was built from (written last)."""
AGENT_TUI_PTH_FILE = "_agent_tui.pth"
BUILD_TIMEOUT = 900.0
"""Seconds a whole build may take (downloads of large packages included)."""

_KEEP_LINES = 400
# Relocatable: its scripts keep working once the finished environment is renamed into place.
_VENV_OPTIONS = ("--clear", "--relocatable", "-q")
_CANCEL_POLL_SECONDS = 0.1


class EnvironmentBuildError(RuntimeError):
    """The project's environment could not be built; ``lines`` are uv's own words."""

    def __init__(self, reason: str, lines: Sequence[str] = ()) -> None:
        self.reason = reason
        self.lines = list(lines)
        message = reason
        if self.lines:
            message += "\n" + "\n".join(self.lines)
        super().__init__(message)


@dataclass(frozen=True)
class BuildProgress:
    """One step of a build, for a progress display."""

    stage: str
    """What is being done, in a few words ("resolving", "installing 12 packages", …)."""
    line: str = ""
    """uv's latest output line (plain text)."""
    done: int = 0
    total: int | None = None
    """Packages to install, once uv has resolved them."""
    from_line: bool = False
    """The stage was read from ``line`` (``downloaded openai`` from ``Downloaded openai``)."""

    @property
    def shown(self) -> str:
        """One line for a progress display: uv's own words alone when the stage only
        restates them (``Downloaded openai``, not ``downloaded openai · Downloaded
        openai``), else the stage and uv's latest line."""
        line = self.line.strip()
        if not line or line == self.stage:
            return self.stage
        return line if self.from_line else f"{self.stage} · {line}"


ProgressCallback = Callable[[BuildProgress], None]


class EnvironmentBuilder:
    """Runs uv to build one environment, reporting progress as uv reports it."""

    def __init__(
        self,
        plan: EnvironmentPlan,
        progress: ProgressCallback | None = None,
        *,
        cancel: threading.Event | None = None,
    ) -> None:
        """``cancel``, once set, stops uv (with its build backends) and the build.

        With ``cancel``, uv leads a process group of its own, so that stopping it takes
        its build backends too. Without, it stays in ours: a caller that stops builds by
        killing its own group (the control plane's build child) takes uv with it.
        """
        self.plan = plan
        self._own_group = cancel is not None and NEW_SESSION
        self._cancel = cancel or threading.Event()
        self._progress = progress or (lambda _p: None)
        self.lines: list[str] = []
        self._renamed: tuple[str, str] | None = None
        """While building beside the environment: (that folder, the environment's), so
        that uv's lines name the folder the user will find."""
        self._done = 0
        self._total: int | None = None

    def build(self) -> None:
        """Build the environment beside the current one and swap it in once it is
        complete: a build that fails (a dependency uv cannot install) leaves the
        environment a running server uses as it was. Not on Windows, where a folder in
        use cannot be renamed: there it is built in place."""
        target = self.plan
        if os.name == "nt":
            (target.env_dir / MARKER_FILE).unlink(missing_ok=True)
            self._build()
            return
        self.plan = dataclasses.replace(target, env_dir=_staging_dir(target.env_dir))
        self._renamed = (str(self.plan.env_dir), str(target.env_dir))
        try:
            self._build()
            _swap_in(self.plan.env_dir, target.env_dir)
        finally:
            shutil.rmtree(self.plan.env_dir, ignore_errors=True)  # gone when swapped in
            self.plan = target
            self._renamed = None

    def _build(self) -> None:
        plan = self.plan
        uv = find_uv()
        created = False
        if plan.python_version:
            self._report(f"creating the environment (Python {plan.python_version})")
            created = self._run_uv([uv, "venv", *_VENV_OPTIONS, "--python", plan.python_version])
            if not created:
                self._note(
                    f"warning: python_version {plan.python_version} is not available "
                    f"(uv's words above); using Python {sys.version.split()[0]}"
                )
        if not created:
            self._report("creating the environment")
            if not self._run_uv([uv, "venv", *_VENV_OPTIONS, "--python", sys.executable]):
                raise EnvironmentBuildError("uv could not create the environment", self.lines)
        self._link_agent_tui()
        self._install(uv)
        marker = {"key": plan.key(), "config": str(plan.config_path), "built_at": time.time()}
        write_text_atomically(plan.env_dir / MARKER_FILE, json.dumps(marker))
        self._report("environment ready")

    def _install(self, uv: str) -> None:
        """The project's dependencies and what the server needs, resolved together by uv
        as the project's own environment would be: nothing of agent-tui's environment
        holds them (a project may need an older httpx or cryptography than agent-tui's)."""
        plan = self.plan
        command = [uv, "pip", "install", "--python", str(plan.python), *server_requirements()]
        command += plan.requirements
        for folder in plan.editables:
            command += ["-e", str(folder)]
        for file in plan.requirement_files:
            command += ["-r", str(file)]
        self._report("resolving the project's dependencies")
        if not self._run_uv(command, counting=True):
            raise EnvironmentBuildError(_install_failure(self.lines), self.lines)

    def _link_agent_tui(self) -> None:
        """Make the ``agent_tui`` package importable in the environment (the server
        process runs `agent_tui.server`, which needs only the standard library and what
        `server_requirements` installs); nothing else of agent-tui's environment."""
        site_packages = _site_packages_of(self.plan.python)
        code = self.plan.env_dir / "agent-tui-code"
        code.mkdir(exist_ok=True)
        link = code / "agent_tui"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(Path(agent_tui.__file__).resolve().parent, target_is_directory=True)
        # Relative (a .pth line is read against its own folder): the environment is built
        # under another name and then renamed.
        line = os.path.relpath(code, site_packages)
        write_text_atomically(site_packages / AGENT_TUI_PTH_FILE, line + "\n")

    # -- running uv ----------------------------------------------------------------------

    def _report(
        self,
        stage: str,
        line: str = "",
        done: int | None = None,
        total: int | None = None,
        *,
        from_line: bool = False,
    ) -> None:
        # Steps without a count keep the last one: the bar never jumps back.
        if done is not None:
            self._done, self._total = done, total
        self._progress(BuildProgress(stage, line, self._done, self._total, from_line))

    def _note(self, line: str) -> None:
        self.lines.append(line)
        self._report(line, line)

    def _run_uv(self, command: list[str], *, counting: bool = False) -> bool:
        """Run uv in the env folder's parent, following its output; True on success."""
        if command[1] == "venv":
            command = [*command, str(self.plan.env_dir)]
        env = {**without_own_keys(os.environ), "NO_COLOR": "1", "UV_NO_PROGRESS": "1"}
        env.pop("VIRTUAL_ENV", None)  # uv must install where --python says, nowhere else
        try:
            process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=self.plan.config_path.parent,
                start_new_session=self._own_group,
            )
        except OSError as exc:
            raise EnvironmentBuildError(f"cannot run uv: {exc}") from exc
        assert process.stdout is not None
        counter = _InstallCounter() if counting else None
        finished = threading.Event()
        guard = threading.Thread(
            target=self._stop_uv_when_asked, args=(process, finished), daemon=True
        )
        guard.start()
        try:
            for line in _lines(process.stdout):
                if self._renamed is not None:
                    line = line.replace(*self._renamed)
                self.lines.append(line)
                del self.lines[:-_KEEP_LINES]
                if counter is not None:
                    stage = counter.read(line)
                    read = stage != _InstallCounter.UNREAD
                    self._report(stage, line, counter.done, counter.total, from_line=read)
                else:
                    self._report("creating the environment", line)
            code = process.wait()
        finally:
            finished.set()
            guard.join()
            if process.poll() is None:
                # Left early (the progress callback failed: the app quit meanwhile):
                # nobody follows uv any more, so it must not go on building.
                kill_group(process.pid, process.kill)
                process.wait()
            process.stdout.close()
        if self._cancel.is_set():
            raise EnvironmentBuildError("the build was stopped", self.lines)
        if code < 0:
            self.lines.append(f"uv stopped after {BUILD_TIMEOUT:g} s")
        return code == 0

    def _stop_uv_when_asked(
        self, process: subprocess.Popen[bytes], finished: threading.Event
    ) -> None:
        """Kill uv (its group, when it leads one) when the build is cancelled or too long."""
        deadline = time.monotonic() + BUILD_TIMEOUT
        while not finished.wait(_CANCEL_POLL_SECONDS):
            if self._cancel.is_set() or time.monotonic() >= deadline:
                kill_group(process.pid, process.kill)  # uv alone when it has no group
                return


class _InstallCounter:
    """Reads uv's plain output into a count of packages done out of packages to install."""

    _RESOLVED = re.compile(r"^Resolved (\d+) packages?")
    _AUDITED = re.compile(r"^Audited (\d+) packages?")
    _PREPARING = re.compile(r"^\s*(Downloading|Building) (\S+)")
    _PREPARED = re.compile(r"^\s*(Downloaded|Built) (\S+)")
    _ADDED = re.compile(r"^ [+~] (\S+)")
    UNREAD = "installing packages"  # the stage of a line it does not read

    def __init__(self) -> None:
        self.total: int | None = None
        self.prepared = 0
        self.installed = 0

    @property
    def done(self) -> int:
        done = max(self.prepared, self.installed)
        return min(done, self.total) if self.total is not None else done

    def read(self, line: str) -> str:
        """The stage this line tells of, counting what it reports done."""
        if match := self._RESOLVED.match(line):
            self.total = int(match.group(1))
            return f"resolved {self.total} packages"
        if self._AUDITED.match(line):
            self.installed = self.total or 0
            return "everything is installed already"
        if match := self._PREPARING.match(line):
            return f"{match.group(1).lower()} {match.group(2)}"
        if match := self._PREPARED.match(line):
            self.prepared += 1
            return f"{match.group(1).lower()} {match.group(2)}"
        if match := self._ADDED.match(line):
            self.installed += 1
            return f"installed {match.group(1)}"
        return self.UNREAD


def _install_failure(lines: Sequence[str]) -> str:
    """Why uv could not install: when its explanation names what the server needs (a
    project asking for a langgraph-api release outside the range, or for a package the
    server's needs rule out), which releases the server runs."""
    said = " ".join(" ".join(lines[-40:]).split())  # uv wraps its lines to the terminal
    _, found, cause = said.partition("No solution found")
    if found and any(f"{name}{wanted}" in cause for name, wanted in RANGES.items()):
        return (
            "the project's dependencies conflict with what agent-tui's local server needs: "
            f"it runs {supported_words()}"
        )
    return "uv could not install the project's dependencies"


def find_uv() -> str:
    """The uv executable: on PATH, else beside this interpreter, else the `uv` package's."""
    candidates = [shutil.which("uv"), str(Path(sys.executable).with_name("uv"))]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    with contextlib.suppress(ImportError, FileNotFoundError):
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]

        return str(find_uv_bin())
    raise EnvironmentBuildError(
        "the project has dependencies to install, and that needs uv, which was not found: "
        "install it (`pip install uv`) and start again"
    )


@contextlib.contextmanager
def build_lock(env_dir: Path) -> Iterator[None]:
    """One build of an environment at a time, across processes."""
    lock_path = env_dir.with_name(env_dir.name + ".lock")
    with open(lock_path, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: builds of one project at once are the user's call
            yield
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# -- helpers ------------------------------------------------------------------------------


def _staging_dir(env_dir: Path) -> Path:
    return env_dir.with_name(env_dir.name + ".new")


def _swap_in(new: Path, env_dir: Path) -> None:
    """Put the finished environment ``new`` at ``env_dir``, removing the old one.

    A server still running on the old one keeps its path, which now holds the new one.
    """
    old = env_dir.with_name(env_dir.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if env_dir.exists():
        env_dir.rename(old)
    new.rename(env_dir)
    shutil.rmtree(old, ignore_errors=True)


def _site_packages_of(python: Path) -> Path:
    output = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if output.returncode != 0:
        raise EnvironmentBuildError(
            "the new environment's Python does not start", output.stderr.splitlines()
        )
    return Path(output.stdout.strip())


def _lines(stream: IO[bytes]) -> Iterator[str]:
    for raw in iter(stream.readline, b""):
        line = clean_line(raw)
        if line.strip():
            yield line
