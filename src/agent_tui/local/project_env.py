"""The project's environment: what its ``langgraph.json`` declares, installed with uv.

A real graph imports what its project declares (a model provider, a vector store, its own
package). The embedded server therefore runs on an interpreter whose environment has:

- the project's dependencies: ``langgraph.json`` ``dependencies`` (``"."`` and other local
  folders — a folder with a ``pyproject.toml`` that can be built, or a ``setup.py``, is
  installed editable so edits are live; one whose ``pyproject.toml`` cannot be built gets
  its ``[project] dependencies``; one with a ``requirements.txt`` gets that file — and
  requirement strings), plus the ``pyproject.toml`` / ``requirements.txt`` beside
  ``langgraph.json`` even when ``"."`` is not listed;
- the server stack agent-tui supports (langgraph-api, its runtime, LangGraph), which the
  project's requirements may not replace: every package of that stack is pinned, as a uv
  constraint, to the version agent-tui itself runs.

The environment is a virtual environment in the user cache folder, one per project,
**layered** over agent-tui's own: a ``.pth`` file adds agent-tui's site-packages after the
project's, so the server stack is not installed again (no download, no network for a
project whose own dependencies are local) and the project's packages win where both
have one. A ``python_version`` other than agent-tui's own cannot share compiled packages,
so it gets a standalone environment with the server stack installed too (when uv can
provide that Python; otherwise agent-tui's Python is used and a warning says so).

It is rebuilt only when what it was built from changes: the hash of the dependency
declarations, the dependency files' contents, agent-tui's version and interpreter is
kept in the environment, and compared at each start (a few file reads). A project with
nothing to install (the bundled demo graphs) runs on agent-tui's interpreter directly.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import IO, Any, TypeVar

import platformdirs

from agent_tui import __version__
from agent_tui.local.langgraph_config import DEMO_CONFIG, LangGraphConfig
from agent_tui.local.server_log import clean_line

SERVER_STACK = ("langgraph-api", "langgraph-runtime-inmem")
"""The packages whose whole dependency closure is pinned to agent-tui's own versions."""

MARKER_FILE = "agent-tui-env.json"
BASE_PTH_FILE = "_agent_tui_base.pth"
DEPENDENCY_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")
BUILD_TIMEOUT = 900.0
"""Seconds a whole build may take (downloads of large packages included)."""

_KEEP_LINES = 400
_T = TypeVar("_T")


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


ProgressCallback = Callable[[BuildProgress], None]


@dataclass(frozen=True)
class EnvironmentPlan:
    """What a project's environment is built from, and where it lives."""

    config_path: Path
    env_dir: Path
    requirements: list[str] = field(default_factory=list)
    """Requirement strings (from ``dependencies`` and unbuildable ``pyproject.toml`` files)."""
    editables: list[Path] = field(default_factory=list)
    """Local packages installed editable."""
    requirement_files: list[Path] = field(default_factory=list)
    python_version: str | None = None
    """``langgraph.json`` ``python_version`` when it is not agent-tui's own."""
    sources: list[Path] = field(default_factory=list)
    """The files whose content the environment depends on (hashed)."""

    @property
    def is_empty(self) -> bool:
        return not (self.requirements or self.editables or self.requirement_files)

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        if os.name == "nt":
            return self.env_dir / "Scripts" / "python.exe"
        return self.env_dir / "bin" / "python"

    def key(self) -> str:
        """A hash of everything the environment is built from."""
        digest = hashlib.sha256()
        parts: dict[str, Any] = {
            "agent_tui": __version__,
            "interpreter": sys.executable,
            "base": _base_site_packages(),
            "python_version": self.python_version,
            "requirements": self.requirements,
            "editables": [str(path) for path in self.editables],
            "requirement_files": [str(path) for path in self.requirement_files],
            "stack": server_stack_pins(),
        }
        digest.update(json.dumps(parts, sort_keys=True).encode())
        for source in self.sources:
            digest.update(str(source).encode())
            with contextlib.suppress(OSError):
                digest.update(source.read_bytes())
        return digest.hexdigest()[:24]


def environments_dir() -> Path:
    """Where project environments live: the user cache folder (``AGENT_TUI_HOME/cache``)."""
    home = os.environ.get("AGENT_TUI_HOME")
    root = Path(home) / "cache" if home else Path(platformdirs.user_cache_dir("agent-tui"))
    path = root / "envs"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def plan_environment(config: LangGraphConfig, env_dir: Path | None = None) -> EnvironmentPlan:
    """What ``config``'s project needs installed (``is_empty`` when nothing)."""
    from agent_tui.local.embedded_server import server_key

    raw = _raw_config(config.path)
    requirements: list[str] = []
    editables: list[Path] = []
    requirement_files: list[Path] = []
    sources: list[Path] = [config.path]
    folders: list[Path] = []
    dependencies = raw.get("dependencies", [])
    for dependency in dependencies if isinstance(dependencies, list) else []:
        if not isinstance(dependency, str) or not dependency.strip():
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
    python_version = raw.get("python_version")
    own = f"{sys.version_info.major}.{sys.version_info.minor}"
    wanted = str(python_version) if python_version else None
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
) -> str:
    """The interpreter to run ``config``'s server with, building its environment if needed.

    Returns ``sys.executable`` when the project has nothing to install. Raises
    `EnvironmentBuildError` (with uv's output) when the build fails.
    """
    plan = plan_environment(config, env_dir)
    if plan.is_empty:
        return sys.executable
    if is_current(plan):
        return str(plan.python)
    with _build_lock(plan.env_dir):
        if not is_current(plan):  # another process may have built it meanwhile
            EnvironmentBuilder(plan, progress).build()
    return str(plan.python)


def server_stack_pins() -> list[str]:
    """``name==version`` for every installed package of the server stack's closure."""
    return [f"{name}=={version}" for name, version in sorted(_stack_closure().items())]


class EnvironmentBuilder:
    """Runs uv to build one environment, reporting progress as uv reports it."""

    def __init__(self, plan: EnvironmentPlan, progress: ProgressCallback | None = None) -> None:
        self.plan = plan
        self._progress = progress or (lambda _p: None)
        self.lines: list[str] = []
        self._done = 0
        self._total: int | None = None

    def build(self) -> None:
        plan = self.plan
        uv = find_uv()
        (plan.env_dir / MARKER_FILE).unlink(missing_ok=True)
        layered = True
        python = sys.executable
        if plan.python_version:
            self._report(f"creating the environment (Python {plan.python_version})")
            if self._run_uv([uv, "venv", "--clear", "--python", plan.python_version, "-q"]):
                layered = False
            else:
                self._note(
                    f"warning: python_version {plan.python_version} is not available "
                    f"(uv's words above); using Python {sys.version.split()[0]}"
                )
        if layered:
            self._report("creating the environment")
            if not self._run_uv([uv, "venv", "--clear", "--python", python, "-q"]):
                raise EnvironmentBuildError("uv could not create the environment", self.lines)
        self._link_agent_tui(layered)
        self._install(uv, layered)
        marker = {"key": plan.key(), "config": str(plan.config_path), "built_at": time.time()}
        (plan.env_dir / MARKER_FILE).write_text(json.dumps(marker), encoding="utf-8")
        self._report("environment ready")

    def _install(self, uv: str, layered: bool) -> None:
        plan = self.plan
        constraints = plan.env_dir / "agent-tui-constraints.txt"
        pins = server_stack_pins()
        if not layered:
            # Other Python: only the server's own packages pinned; the rest resolved anew.
            pins = [pin for pin in pins if pin.split("==")[0] in SERVER_STACK]
        constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
        command = [uv, "pip", "install", "--python", str(plan.python), "-c", str(constraints)]
        if not layered:
            command += [*pins, "platformdirs", "httpx"]
        command += plan.requirements
        for folder in plan.editables:
            command += ["-e", str(folder)]
        for file in plan.requirement_files:
            command += ["-r", str(file)]
        self._report("resolving the project's dependencies")
        if not self._run_uv(command, counting=True):
            raise EnvironmentBuildError(
                "uv could not install the project's dependencies", self.lines
            )

    def _link_agent_tui(self, layered: bool) -> None:
        """Make agent-tui (and, layered, its whole environment) importable in the env."""
        site_packages = _site_packages_of(self.plan.python)
        if layered:
            lines = [
                f"import site; site.addsitedir({folder!r})" for folder in _base_site_packages()
            ]
        else:
            # Only the agent_tui package: the server process runs `agent_tui.local`.
            code = self.plan.env_dir / "agent-tui-code"
            code.mkdir(exist_ok=True)
            link = code / "agent_tui"
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(Path(__file__).resolve().parent.parent, target_is_directory=True)
            lines = [str(code)]
        (site_packages / BASE_PTH_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")

    # -- running uv ----------------------------------------------------------------------

    def _report(
        self, stage: str, line: str = "", done: int | None = None, total: int | None = None
    ) -> None:
        # Steps without a count keep the last one: the bar never jumps back.
        if done is not None:
            self._done, self._total = done, total
        self._progress(BuildProgress(stage, line, self._done, self._total))

    def _note(self, line: str) -> None:
        self.lines.append(line)
        self._report(line, line)

    def _run_uv(self, command: list[str], *, counting: bool = False) -> bool:
        """Run uv in the env folder's parent, following its output; True on success."""
        if command[1] == "venv":
            command = [*command, str(self.plan.env_dir)]
        env = {**os.environ, "NO_COLOR": "1", "UV_NO_PROGRESS": "1"}
        env.pop("VIRTUAL_ENV", None)  # uv must install where --python says, nowhere else
        try:
            process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=self.plan.config_path.parent,
            )
        except OSError as exc:
            raise EnvironmentBuildError(f"cannot run uv: {exc}") from exc
        assert process.stdout is not None
        counter = _InstallCounter() if counting else None
        timer = threading.Timer(BUILD_TIMEOUT, process.kill)
        timer.daemon = True
        timer.start()
        try:
            for line in _lines(process.stdout):
                self.lines.append(line)
                del self.lines[:-_KEEP_LINES]
                if counter is not None:
                    stage = counter.read(line)
                    self._report(stage, line, counter.done, counter.total)
                else:
                    self._report("creating the environment", line)
            code = process.wait()
        finally:
            timer.cancel()
        if code < 0:
            self.lines.append(f"uv stopped after {BUILD_TIMEOUT:g} s")
        return code == 0


class _InstallCounter:
    """Reads uv's plain output into a count of packages done out of packages to install."""

    _RESOLVED = re.compile(r"^Resolved (\d+) packages?")
    _AUDITED = re.compile(r"^Audited (\d+) packages?")
    _PREPARING = re.compile(r"^\s*(Downloading|Building) (\S+)")
    _PREPARED = re.compile(r"^\s*(Downloaded|Built) (\S+)")
    _ADDED = re.compile(r"^ [+~] (\S+)")

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
        return "installing packages"


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


# -- helpers ------------------------------------------------------------------------------


def _raw_config(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _is_local_path(dependency: str) -> bool:
    return dependency.startswith((".", "/", "~")) or (
        os.name == "nt" and re.match(r"^[A-Za-z]:[\\/]", dependency) is not None
    )


def _local_folder(folder: Path) -> tuple[str, list[str]]:
    """How to install a local folder: ("editable" | "requirements" | "path", requirements)."""
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
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


def _base_site_packages() -> list[str]:
    paths = sysconfig.get_paths()
    return _unique([paths["purelib"], paths["platlib"]])


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


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _stack_closure() -> dict[str, str]:
    """Installed name → version for `SERVER_STACK` and everything it requires."""
    from packaging.requirements import InvalidRequirement, Requirement

    installed = {_normalize(d.metadata["Name"]): d for d in metadata.distributions()}
    closure: dict[str, str] = {}
    pending = [_normalize(name) for name in SERVER_STACK]
    while pending:
        name = pending.pop()
        dist = installed.get(name)
        if dist is None or name in closure:
            continue
        closure[name] = dist.version
        for spec in dist.requires or []:
            try:
                requirement = Requirement(spec)
            except InvalidRequirement:
                continue
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(_normalize(requirement.name))
    return closure


def _lines(stream: IO[bytes]) -> Iterator[str]:
    for raw in iter(stream.readline, b""):
        line = clean_line(raw)
        if line.strip():
            yield line


@contextlib.contextmanager
def _build_lock(env_dir: Path) -> Iterator[None]:
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
