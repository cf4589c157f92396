"""Live reload of the embedded server: an edit to the project restarts it, threads kept.

Like ``langgraph dev``, but an edit that breaks the graphs never takes the server down:

1. a burst of changes to the project's Python files, its ``langgraph.json``, its ``.env``
   or a dependency file arrives (`ProjectWatcher`);
2. the project's environment is brought up to date (rebuilt only when a dependency file
   changed), and the graphs are imported in a child process (`check_graphs`);
3. if that fails, the server keeps running the code it has, and the problem (file, line,
   message) is reported; the next change tries again, so fixing it recovers;
4. if it succeeds, the server restarts on the same listening socket: the in-memory
   runtime saves its data on the way down and loads it on the way up (threads, runs and
   assistants survive), and requests made meanwhile wait instead of failing.

Steps 2 and 4 each start a process that spends seconds importing LangGraph and the web
server. So, after each reload (and at start), a graph check and a server are started
ahead of time (`standby`) and wait: the next reload only tells them to go. `stop` ends
them, and they end by themselves when agent-tui dies. The graph check goes at the first
change to the code, not at the end of the burst, so it runs during the quiet time that
ends the burst; a later change in the burst kills it and the check runs after. As the
burst's check starts, the waiting server runs the graph files too (`load`), beside the
check and the old server's stop; if the check fails, that server is replaced.

Events go to ``on_event`` from the watcher's thread; the app and ``agent-tui serve`` turn
them into a notification or a log line. The latest one is also recorded in the server's
data folder (`record`), where copies of agent-tui attached to the server see it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

from agent_tui.local.langgraph_config import (
    LangGraphConfig,
    LangGraphConfigError,
    load_langgraph_config,
)
from agent_tui.local.live_reload.graph_check import CheckStandby, GraphProblem, check_graphs
from agent_tui.local.live_reload.record import (
    read_imports,
    remove_reload_record,
    write_imports,
    write_reload_record,
)
from agent_tui.local.live_reload.watcher import DEFAULT_DEBOUNCE_MS, ProjectWatcher
from agent_tui.local.project_env.environment import (
    EnvironmentBuildError,
    ensure_environment,
    is_current,
    plan_environment,
)
from agent_tui.local.supervisor.embedded_server import EmbeddedAgentServer
from agent_tui.local.supervisor.errors import EmbeddedServerError

logger = logging.getLogger(__name__)

ReloadKind = Literal["reloading", "reloaded", "failed"]


@dataclass(frozen=True)
class ReloadEvent:
    kind: ReloadKind
    files: list[Path] = field(default_factory=list)
    """What changed (project-relative where possible)."""
    message: str = ""
    """One line for a notification or a log."""
    problems: list[GraphProblem] = field(default_factory=list)
    """For ``failed``: where the graphs broke (file, line, message)."""
    details: list[str] = field(default_factory=list)
    """For ``failed``: uv's or the server's last lines, when they explain it."""
    seconds: float = 0.0
    """For ``reloaded``: how long the reload took."""

    def to_json(self) -> dict[str, Any]:
        """The event as JSON (`record`); `from_json` reads it back."""
        problems = [
            {
                "graph": problem.graph,
                "file": str(problem.file) if problem.file is not None else None,
                "line": problem.line,
                "message": problem.message,
                "project": str(problem.project) if problem.project is not None else None,
            }
            for problem in self.problems
        ]
        return {
            "kind": self.kind,
            "files": [str(path) for path in self.files],
            "message": self.message,
            "problems": problems,
            "details": self.details,
            "seconds": self.seconds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReloadEvent | None:
        """The event `to_json` wrote; None if ``data`` is not one."""
        kind, seconds = data.get("kind"), data.get("seconds")
        if kind not in get_args(ReloadKind):
            return None
        problems = [
            GraphProblem(
                _text(item.get("graph")),
                _path(item.get("file")),
                item.get("line") if isinstance(item.get("line"), int) else None,
                _text(item.get("message")) or "did not load",
                _path(item.get("project")),
            )
            for item in _list(data.get("problems"))
            if isinstance(item, dict)
        ]
        return cls(
            cast(ReloadKind, kind),
            [Path(path) for path in _list(data.get("files")) if isinstance(path, str)],
            _text(data.get("message")) or "",
            problems,
            [line for line in _list(data.get("details")) if isinstance(line, str)],
            float(seconds) if isinstance(seconds, int | float) else 0.0,
        )


ReloadListener = Callable[[ReloadEvent], None]

PREWARM_DELAY = 3.0
"""Seconds from the start of watching to the first standbys: their imports take seconds
of CPU, which the app's first screen needs more on a small machine; nobody edits a
file that soon after starting (and if so, that reload runs without them)."""


class LiveReload:
    """Watches one server's project and reloads it on change (see the module docstring)."""

    def __init__(
        self,
        server: EmbeddedAgentServer,
        on_event: ReloadListener,
        *,
        prewarm: bool = True,
        prewarm_delay: float = PREWARM_DELAY,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    ) -> None:
        """``prewarm``: keep a graph check and a server process started ahead of time
        (`standby`), so a reload skips their slow imports; the first ones start
        ``prewarm_delay`` seconds after `start`, the next ones after each reload.
        ``debounce_ms``: the quiet time that ends a burst of changes (`ProjectWatcher`)."""
        self.server = server
        self._debounce_ms = debounce_ms
        self._prewarm = prewarm
        self._prewarm_delay = prewarm_delay
        self._first_prewarm: threading.Timer | None = None
        self._checks = CheckStandby()
        self._on_event = on_event
        self._busy = threading.Lock()
        self._watcher: ProjectWatcher | None = None
        self._stopping = threading.Event()
        """Set by `stop`: a build or check under way is killed, and nothing restarts."""
        self.last_event: ReloadEvent | None = None
        self._config: LangGraphConfig | None = None
        """``langgraph.json`` as last read: the server's at `start`, then each reload's
        (None when it could not be read); the standbys are prepared for it."""
        self._count = 0
        """Events so far, for the record (`record`)."""
        self._imports = read_imports(server.data_dir)
        """The installed modules the graphs imported at the last check (kept in the data
        folder for the next start): the standbys import them ahead."""
        self._early_lock = threading.Lock()
        self._early = False
        """The waiting graph check was told to go at this burst's first change (`_noticed`)."""
        self._settings: frozenset[Path] = frozenset()
        self._settings_for: LangGraphConfig | None = None
        """The files outside the code that count (`project_paths`), for this config."""

    def start(self, *, changed_since: float | None = None) -> None:
        """Watch the project. ``changed_since``: when the server started reading the
        project (a `time.time()`); an edit made after it, before the watches were in
        place, reloads the server once they are (`ProjectWatcher.start`)."""
        self._config = self.server.config  # as the start read it: not read again here
        folders, extra = project_paths(self._config)
        self._watcher = ProjectWatcher(
            folders,
            self._changed,
            debounce_ms=self._debounce_ms,
            extra_files=extra,
            on_notice=self._noticed,
        )
        self._watcher.start(changed_since=changed_since)
        self._record(None)
        if self._prewarm:
            self._first_prewarm = threading.Timer(self._prewarm_delay, self._prepare_when_idle)
            self._first_prewarm.daemon = True
            self._first_prewarm.start()

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """Wait until the project is watched; False (with ``error`` set) if it cannot be."""
        return self._watcher is not None and self._watcher.wait_ready(timeout)

    @property
    def error(self) -> BaseException | None:
        """Why watching stopped (no more file watches, a folder removed), if it did."""
        return self._watcher.error if self._watcher is not None else None

    def stop(self) -> None:
        """Stop watching; a reload under way ends without restarting the server, and its
        uv or graph check process is killed, so nothing is left running."""
        self._stopping.set()
        if self._first_prewarm is not None:
            self._first_prewarm.cancel()
        self._checks.close()
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        remove_reload_record(self.server.data_dir)

    def _emit(self, event: ReloadEvent) -> None:
        if self._stopping.is_set():
            return  # nobody listens any more: the app or `serve` is shutting down
        self.last_event = event
        self._count += 1
        self._record(event)
        try:
            self._on_event(event)
        except Exception:  # a listener's bug must not stop the watcher
            logger.exception("reload listener failed")

    def _record(self, event: ReloadEvent | None) -> None:
        try:
            write_reload_record(
                self.server.data_dir, self._count, event.to_json() if event else None
            )
        except OSError as exc:  # only attached copies miss it
            logger.warning("cannot record the reload for other copies: %s", exc)

    def _changed(self, paths: Sequence[Path]) -> None:
        with self._busy:  # one reload at a time; a burst during one starts the next
            with self._early_lock:
                self._early = False  # changes seen from now on belong to the next burst
            try:
                self.reload(list(paths))
            finally:
                self._checks.drop_early()  # if not taken: it must not serve the next burst
            # After the reload, so the slow imports do not slow down the new server's
            # start; in time for the next edit (seconds later, at the earliest).
            self._prepare()

    def _noticed(self, paths: Sequence[Path]) -> None:
        """As each change is seen (on a watching thread): at a burst's first change to the
        project's code, the waiting graph check goes at once, so it runs during the quiet
        time that ends the burst instead of after it. A later change in the same burst
        may be to a file it has read: it is killed, and a new one started for the
        burst's own check."""
        config = self._config
        if not self._prewarm or self._stopping.is_set() or config is None:
            return
        with self._early_lock:
            if self._early:
                self._early = False
                self._checks.drop_early()
                self._prepare_check(config)
            elif not {path.resolve() for path in paths} & self._settings_files(config):
                # (Not for langgraph.json, .env or dependency files: the check reads them
                # at its start, and they may change its launch or environment.)
                self._early = self._checks.start_early()

    def _prepare_when_idle(self) -> None:
        if not self._busy.acquire(blocking=False):
            return  # a reload is under way: it prepares the standbys when it ends
        try:
            self._prepare()
        finally:
            self._busy.release()

    def _prepare(self) -> None:
        """Start the standbys of the next reload's graph check and server."""
        config = self._config
        if not self._prewarm or self._stopping.is_set() or config is None:
            return  # (no config: the last reload could not read it, the next one says why)
        self._prepare_check(config)
        self.server.prepare_standby(config, self._imports)

    def _settings_files(self, config: LangGraphConfig) -> frozenset[Path]:
        if self._settings_for is not config:
            self._settings = frozenset(path.resolve() for path in project_paths(config)[1])
            self._settings_for = config
        return self._settings

    def _prepare_check(self, config: LangGraphConfig) -> None:
        self._checks.prepare(
            config.path, python=self.server.python, env=config.env, imports=self._imports
        )

    def reload(self, files: list[Path]) -> ReloadEvent:
        """Check the project and restart the server on it; what happened, as reported."""
        started = time.monotonic()
        shown = [_relative(path, self.server.config_path.parent) for path in files]
        names = ", ".join(str(path) for path in shown[:3]) + (" …" if len(shown) > 3 else "")
        self._config = None
        try:
            # Read again: the change may be a save of langgraph.json itself.
            config = self._config = load_langgraph_config(self.server.config_path)
            plan = plan_environment(config)
            if not plan.is_empty and not is_current(plan):
                message = f"{names} changed: rebuilding the project's environment"
                self._emit(ReloadEvent("reloading", shown, message))
                # They imported the packages as they were: new ones are started after.
                self._checks.discard()
                self.server.discard_standby()
            python = ensure_environment(config, cancel=self._stopping)
        except LangGraphConfigError as exc:
            return self._failed(shown, str(exc))
        except EnvironmentBuildError as exc:
            return self._failed(shown, exc.reason, details=exc.lines[-20:])
        if self._prewarm:
            # The waiting server runs the graph files beside the check and the old
            # server's stop (`graph_files`); if the check fails, `_prepare` replaces it.
            self.server.load_standby()
        check = check_graphs(
            config.path, python=python, env=config.env, cancel=self._stopping, standby=self._checks
        )
        if self._stopping.is_set():
            return ReloadEvent("failed", shown, "stopped")
        if check.imports and check.imports != self._imports:
            self._imports = check.imports
            write_imports(self.server.data_dir, check.imports)
        if not check.ok:
            first = check.problems[0] if check.problems else None
            message = str(first) if first else "the graphs did not load"
            return self._failed(shown, message, problems=check.problems)
        self._emit(ReloadEvent("reloading", shown, f"{names} changed: reloading"))
        try:
            self.server.restart(python=python, config=config)
        except EmbeddedServerError as exc:
            return self._failed(shown, exc.reason, details=exc.log_lines)
        seconds = time.monotonic() - started
        event = ReloadEvent("reloaded", shown, f"reloaded in {seconds:.1f} s", seconds=seconds)
        logger.info("reloaded %s after a change to %s in %.1f s", self.server.url, names, seconds)
        self._emit(event)
        return event

    def _failed(
        self,
        files: list[Path],
        message: str,
        *,
        problems: Sequence[GraphProblem] = (),
        details: Sequence[str] = (),
    ) -> ReloadEvent:
        event = ReloadEvent(
            "failed", files, message, problems=list(problems), details=list(details)
        )
        # Info, not a warning: the listener reports it to the user (the app on screen,
        # `serve` on stderr, where a warning would print it a second time); the app's log
        # file keeps it at its default level.
        logger.info("reload failed: %s", message)
        self._emit(event)
        return event


def project_paths(config: LangGraphConfig) -> tuple[list[Path], list[Path]]:
    """What to watch for changes to ``config``'s server: the folders (with all they hold)
    and the files outside them that count (``langgraph.json``, ``.env``, dependency files)."""
    folders = [config.folder, *config.dependencies]
    extra = [config.path, *plan_environment(config).sources]
    if config.env_file is not None:
        extra.append(config.env_file)
    return folders, extra


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str) else None


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _relative(path: Path, folder: Path) -> Path:
    try:
        return path.resolve().relative_to(folder)
    except ValueError:
        return path
