"""A project whose local server did not start: where it broke, and a watch until it is fixed.

Live reload keeps a running server when an edit breaks the graphs and says where
(``tools.py:12: ModuleNotFoundError: …``, from `graph_check`). A project broken before
its server ever ran gets the same:

- when the server exits before it answers, `find_graph_problems` runs the same graph
  check, to name the file, line and message (the server's log only says that a graph
  failed to load, followed by langgraph-api's advice to ``pip install`` the project,
  which does not apply to a project agent-tui installs itself);
- `FixWatch` then watches the project as live reload would: each save is checked (the
  graph check again), a save that is still broken says where now, and a save after
  which the graphs import asks for the server to be started again. When the start failed
  for another reason (the environment did not build, ``langgraph.json`` is wrong), any
  save asks for a new start: that start says whether it worked.

Headless; events go to ``on_event`` from the watcher's thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_tui.local.langgraph_config import (
    LangGraphConfig,
    LangGraphConfigError,
    load_langgraph_config,
)
from agent_tui.local.live_reload.graph_check import GraphProblem, check_graphs
from agent_tui.local.live_reload.reloader import project_paths
from agent_tui.local.live_reload.watcher import ProjectWatcher
from agent_tui.local.project_env.environment import (
    EnvironmentBuildError,
    ensure_environment,
    is_current,
    plan_environment,
)
from agent_tui.local.supervisor.errors import ServerExited

logger = logging.getLogger(__name__)


class GraphsDidNotLoad(ServerExited):
    """The server exited because graphs do not import: ``problems`` say where."""

    def __init__(
        self, exited: ServerExited, problems: Sequence[GraphProblem], log_file: Path
    ) -> None:
        self.problems = list(problems)
        self.log_file = log_file
        """The server's full log (what it printed, langgraph-api's advice included)."""
        super().__init__("\n".join(str(problem) for problem in self.problems), exited.log_lines)


def find_graph_problems(
    config: LangGraphConfig, python: str, cancel: threading.Event | None = None
) -> list[GraphProblem]:
    """Where ``config``'s graphs break on ``python`` (the project's interpreter); none
    when they import (the server failed for another reason) or the check was stopped."""
    check = check_graphs(config.path, python=python, env=config.env, cancel=cancel)
    if check.ok or (cancel is not None and cancel.is_set()):
        return []
    return check.problems


FixKind = Literal["checking", "broken", "retry"]


@dataclass(frozen=True)
class FixEvent:
    kind: FixKind
    """``checking`` a save; still ``broken`` after it; ``retry``: start the server again."""
    files: list[Path] = field(default_factory=list)
    """What changed (project-relative where possible)."""
    message: str = ""
    """One line for the screen or a log."""
    problems: list[GraphProblem] = field(default_factory=list)
    """For ``broken``: where the graphs break now."""


FixListener = Callable[[FixEvent], None]


class FixWatch:
    """Watches a project whose server did not start, until a save may have fixed it."""

    def __init__(
        self,
        config_path: Path,
        on_event: FixListener,
        *,
        check_graphs_first: bool,
        loaded: LangGraphConfig | None = None,
    ) -> None:
        """``check_graphs_first``: the start failed because the graphs do not import; a
        save is checked first, and only one after which they import asks for a retry.
        Otherwise every save does. ``loaded``: the config as the failed start read it,
        if it could (what to watch comes from it; else it is read at `start`)."""
        self.config_path = config_path.expanduser().resolve()
        self._loaded = loaded
        self._on_event = on_event
        self.check_graphs_first = check_graphs_first
        self._watcher: ProjectWatcher | None = None
        self._stopping = threading.Event()
        self._asked = threading.Event()
        """A retry was asked for: later saves wait for it (whoever retries stops this)."""

    def start(self) -> None:
        try:
            folders, extra = project_paths(self._loaded or load_langgraph_config(self.config_path))
        except LangGraphConfigError:  # a broken langgraph.json: its folder is the project
            folders, extra = [self.config_path.parent], [self.config_path]
        self._watcher = ProjectWatcher(folders, self._changed, extra_files=extra)
        self._watcher.start()

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """Wait until the project is watched; False if it cannot be."""
        return self._watcher is not None and self._watcher.wait_ready(timeout)

    def stop(self) -> None:
        """Stop watching; a graph check under way is killed. Safe to repeat."""
        self._stopping.set()
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    def _emit(self, event: FixEvent) -> None:
        if self._stopping.is_set():
            return
        try:
            self._on_event(event)
        except Exception:  # a listener's bug must not stop the watcher
            logger.exception("fix watch listener failed")

    def _changed(self, paths: Sequence[Path]) -> None:
        if self._asked.is_set() or self._stopping.is_set():
            return
        folder = self.config_path.parent
        shown = [_relative(path, folder) for path in paths]
        names = ", ".join(str(path) for path in shown[:3]) + (" …" if len(shown) > 3 else "")
        if not self.check_graphs_first:
            self._asked.set()
            self._emit(FixEvent("retry", shown, f"{names} changed: starting the server again"))
            return
        self._emit(FixEvent("checking", shown, f"{names} changed: checking the graphs…"))
        event = self._check(shown, names)
        if event.kind == "retry":
            self._asked.set()
        logger.info("after a change to %s: %s", names, event.message)
        self._emit(event)

    def _check(self, shown: list[Path], names: str) -> FixEvent:
        try:
            # Read again: the save may be of langgraph.json itself.
            config = load_langgraph_config(self.config_path)
        except LangGraphConfigError as exc:
            problem = GraphProblem(None, None, None, str(exc))
            return FixEvent("broken", shown, str(exc), [problem])
        plan = plan_environment(config)
        if not plan.is_empty and not is_current(plan):
            # What it declares changed: the start builds it again, with its progress shown.
            return FixEvent("retry", shown, f"{names} changed: rebuilding the environment")
        try:
            python = ensure_environment(config, cancel=self._stopping)
        except EnvironmentBuildError:  # changed meanwhile: the start builds and says why
            return FixEvent("retry", shown, f"{names} changed: rebuilding the environment")
        problems = find_graph_problems(config, python, self._stopping)
        if not problems:
            return FixEvent("retry", shown, f"{names} changed: the graphs load; starting")
        return FixEvent("broken", shown, str(problems[0]), problems)


def _relative(path: Path, folder: Path) -> Path:
    try:
        return path.resolve().relative_to(folder)
    except ValueError:
        return path
