"""The app's side of the project's local agent server: one per project, whoever runs it.

`LocalSession` gives the app a URL for the `local` context:

- when another process (a second `agent-tui`, `agent-tui serve`) runs the project's server,
  it waits for that server to answer and uses it, and never stops it; that process's
  live reloads are read from the data folder (`live_reload.record`, `reload_news`);
- else it builds the project's environment (`project_env`, progress to the start-up
  screen), starts the embedded server on it, and stops it when the app exits;
- with live reload on (the default from the command line), it watches the project and
  reloads the server on change (`live_reload`), reporting each reload to the app; and
  when its server does not start, it says where the graphs broke and watches the project
  until a save fixes it (`broken_start`), reporting that to the app too.

Headless (no Textual): the start-up screen is reached through the `StartupProgress`
protocol, and every report from a worker thread through the app's ``call_from_thread``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.settings.target import LocalServer, RemoteServer

if TYPE_CHECKING:
    from agent_tui.local import EmbeddedAgentServer, LangGraphConfig, RunningServer
    from agent_tui.local.live_reload.broken_start import FixEvent, FixWatch
    from agent_tui.local.live_reload.record import ReloadRecord
    from agent_tui.local.live_reload.reloader import LiveReload, ReloadEvent
    from agent_tui.local.supervisor.errors import ServerExited
    from agent_tui.traces.untraced import ServerTracing

logger = logging.getLogger(__name__)


class StartupProgress(Protocol):
    """What the session tells the start-up screen."""

    def follow(
        self, heading: str, log_source: Callable[[], Sequence[str]] | None = None
    ) -> None: ...

    def show_build(self, text: str, done: int, total: int | None) -> None: ...


ReloadListener = Callable[["ReloadEvent"], None]
FixListener = Callable[["FixEvent"], None]
OnLoop = Callable[..., Any]
"""``App.call_from_thread``: runs a callable on the app's loop, from a worker thread."""


class LocalSession:
    def __init__(
        self,
        *,
        on_loop: OnLoop,
        on_reload: ReloadListener,
        on_status: Callable[[str], None],
        on_fix: FixListener | None = None,
        on_disk: Callable[[str | None], None] | None = None,
        reload: bool = False,
        start_timeout: float | None = None,
    ) -> None:
        self._on_loop = on_loop
        self._on_reload = on_reload
        self._on_status = on_status
        self._on_fix = on_fix
        self._on_disk = on_disk
        self.disk_problem: str | None = None
        """Why the server this app started cannot save its data now (its log's words)."""
        self.reload = reload
        self.start_timeout = start_timeout
        self.server: EmbeddedAgentServer | None = None
        """The server this app started and owns."""
        self.attached: RunningServer | None = None
        """Another process's server this app uses, when it does."""
        self.owner_reloads = False
        """That process reloads its server on change (it records its reloads)."""
        self._reloads_seen: int | None = None
        self.live_reload: LiveReload | None = None
        self.fix_watch: FixWatch | None = None
        """After a failed start (with reload on): watches the project until a save fixes it."""
        self._cancel_build = threading.Event()
        """Set by `stop`: a build under way ends (uv killed), so quitting does not wait."""
        self._config: LangGraphConfig | None = None
        """The project's ``langgraph.json`` as the last start read it (once, for all)."""
        self._tracing: ServerTracing = "tracing-off"
        """How the server this app started traces (set as it starts)."""

    def server_tracing(
        self, target: object, control_plane_folder: Path | None = None
    ) -> ServerTracing:
        """How the runs of the server of ``target`` (the app's) reach this machine's trace
        store: a local server's as this app started it; another's as the local control
        plane that deployed it started it, if one did (of ``control_plane_folder``, or
        the default one: its deployments' notes, read from disk: call this from a
        thread)."""
        if isinstance(target, RemoteServer):
            from agent_tui.local.control_plane.deployment_tracing import deployment_tracing

            found = deployment_tracing(target.url, control_plane_folder)
            return found or "not-started-here"
        if not isinstance(target, LocalServer):
            return "not-started-here"
        if self.attached is not None:
            return "traced"  # another agent-tui's: it starts servers as this one does
        return self._tracing if self.server is not None else "not-started-here"

    # -- connecting ----------------------------------------------------------------------

    def running_url(self) -> str | None:
        """The own server's URL if it is up already (switching back to `local`)."""
        server = self.server
        if server is not None and server.is_running and server.startup_seconds is not None:
            return server.url
        return None

    async def url(self, target: LocalServer, startup: StartupProgress) -> str:
        """The project's local server: the one another process runs for its data folder
        if there is one (connected to, never stopped), else one this app starts."""
        # A retry after a failed start begins from a clean slate.
        await asyncio.to_thread(self.stop)
        self._cancel_build = threading.Event()
        self.attached = None
        self._config = None
        from agent_tui.local import (
            EmbeddedServerError,
            ServerAlreadyRunning,
            default_langgraph_config,
            local_server_data_dir,
            running_server,
        )
        from agent_tui.local.project_env.environment import EnvironmentBuildError

        config = target.config_path or default_langgraph_config(Path.cwd())
        data_dir = target.data_dir or local_server_data_dir(config)
        for _ in range(3):  # the folder may change hands while we look
            running = await asyncio.to_thread(running_server, data_dir)
            if running is not None:
                url = await self._attach(running, startup)
                if url is not None:
                    return url
                continue  # its owner let go of it: start our own
            try:
                return await self._start(config, data_dir, startup)
            except ServerAlreadyRunning:
                self.server = None  # another copy started it first: connect to it
            except (EmbeddedServerError, EnvironmentBuildError) as error:
                await asyncio.to_thread(self._watch_until_fixed, config, error)
                raise
        raise EmbeddedServerError(
            f"the local agent server for {config} kept starting and stopping in other "
            "processes; try again"
        )

    async def _attach(self, running: RunningServer, startup: StartupProgress) -> str | None:
        """Wait until another process's server answers; None once nobody owns it."""
        from agent_tui.local import (
            DEFAULT_READY_TIMEOUT,
            EmbeddedServerError,
            wait_for_running_server,
        )

        who = f"process {running.pid}" if running.pid is not None else "another process"
        self._on_status(f"waiting for the local server of {who}…")
        if running.url is None:
            startup.follow(f"Waiting for the local agent server that {who} is starting")
        else:
            startup.follow(f"Connecting to the local agent server of {who} at {running.url}")
        # Its owner gives up (and lets go) after its own timeout; this is a backstop.
        timeout = self.start_timeout or 2 * DEFAULT_READY_TIMEOUT
        try:
            ready = await wait_for_running_server(running.data_dir, timeout)
        except TimeoutError as error:
            raise EmbeddedServerError(str(error)) from None
        if ready is None or ready.url is None:
            return None
        logger.info("using the local agent server of process %s at %s", ready.pid, ready.url)
        self.attached = ready
        self._reloads_seen = None
        self.owner_reloads = await asyncio.to_thread(self._owner_record, ready) is not None
        return ready.url

    async def _start(self, config: Path, data_dir: Path, startup: StartupProgress) -> str:
        from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer
        from agent_tui.local.supervisor.errors import ServerExited
        from agent_tui.local.supervisor.launch import read_config

        # Read once, here: the environment, the server, its standbys and live reload are
        # handed this (only a reload after a save, and the children, read it again).
        loaded = self._config = read_config(config)
        from agent_tui.local.trace_collector.wiring import server_tracing, tracing_environment

        # The collector's process starts (if this is its first server) while the
        # project's environment is checked or built.
        tracing_started = asyncio.ensure_future(asyncio.to_thread(tracing_environment, loaded.env))
        python = await self._project_python(config, loaded, startup)
        # The demo graphs are agent-tui's own code: nothing of the user's to watch.
        reload = self.reload and config != DEMO_CONFIG
        tracing = await tracing_started
        self._tracing = server_tracing(tracing, loaded.env)
        server = EmbeddedAgentServer(
            loaded,
            data_dir=data_dir,
            python=python,
            hold_listener=reload,
            on_line=self._watch_disk,
            # Every model and tool call of its runs, to agent-tui's own collector.
            env=tracing,
        )
        self.server = server  # set before start: shutdown must find it
        self.disk_problem = None
        startup.follow(f"Starting a local agent server for {config}", server.log_lines)
        launched = time.time()  # it reads the project from then on
        await asyncio.to_thread(server.start)
        try:
            if self.start_timeout is None:
                await server.wait_until_ready_async()
            else:
                await server.wait_until_ready_async(self.start_timeout)
        except ServerExited as exited:
            raise await self._explain(exited, config, loaded, python, startup) from None
        logger.info(
            "local agent server ready at %s after %.1fs (its log: %s)",
            server.url,
            server.startup_seconds or 0.0,
            server.log_file,
        )
        if reload:
            await asyncio.to_thread(self._watch, server, launched)
        return server.url

    def _watch_disk(self, line: str) -> None:
        """A server log line (from the reader thread) that says its data cannot be saved
        (its words), or can be again (None), goes to ``on_disk`` on the loop."""
        from agent_tui.local.disk_problem import disk_news

        news = disk_news(line)
        if news is None:
            return
        self.disk_problem = news or None
        if self._on_disk is not None:
            self._on_loop(self._on_disk, news or None)

    async def _explain(
        self,
        exited: ServerExited,
        config: Path,
        loaded: LangGraphConfig,
        python: str,
        startup: StartupProgress,
    ) -> ServerExited:
        """Why the server exited, as live reload would say it: where the graphs break
        (`broken_start.GraphsDidNotLoad`), else as it was (as it was at once when the
        server said why: an unsupported langgraph-api release is no graph's fault)."""
        from agent_tui.local.live_reload.broken_start import GraphsDidNotLoad, find_graph_problems

        if exited.said:
            return exited

        # The same heading: a failure is shown under it.
        checking = ["the server stopped: looking for where the graphs break"]
        startup.follow(f"Starting a local agent server for {config}", lambda: checking)
        problems = await asyncio.to_thread(find_graph_problems, loaded, python, self._cancel_build)
        if not problems:
            return exited
        log_file = self.server.log_file if self.server is not None else config
        return GraphsDidNotLoad(exited, problems, log_file)

    async def _project_python(
        self, config: Path, loaded: LangGraphConfig, startup: StartupProgress
    ) -> str:
        """The interpreter for `config`'s server: the project's environment, built first
        (uv's progress on the start-up screen) when what it declares changed."""
        from agent_tui.local.project_env.environment import BuildProgress, ensure_environment

        def report(progress: BuildProgress) -> None:
            self._on_loop(startup.show_build, progress.shown, progress.done, progress.total)

        startup.follow(f"Preparing the environment of {config}")
        cancel = self._cancel_build
        return await asyncio.to_thread(ensure_environment, loaded, report, cancel=cancel)

    def owner_gone(self) -> bool:
        """Whether the other process's server this app uses has stopped (or changed
        hands). Blocking: a look at the data folder's lock."""
        attached = self.attached
        if attached is None:
            return False
        from agent_tui.local import running_server

        now = running_server(attached.data_dir)
        return now is None or (now.pid, now.url) != (attached.pid, attached.url)

    def reload_news(self) -> ReloadEvent | None:
        """The latest reload of the other process's server this app uses, if it is new
        since the last look; at the first look, only one that still matters (under way,
        or failed: the server runs older code). Blocking: a file read."""
        from agent_tui.local.live_reload.reloader import ReloadEvent

        attached = self.attached
        record = self._owner_record(attached) if attached is not None else None
        if record is None or record.count == self._reloads_seen:
            return None
        first, self._reloads_seen = self._reloads_seen is None, record.count
        self.owner_reloads = True
        event = ReloadEvent.from_json(record.event) if record.event is not None else None
        if event is None or (first and event.kind == "reloaded"):
            return None
        return event

    @staticmethod
    def _owner_record(attached: RunningServer) -> ReloadRecord | None:
        from agent_tui.local.live_reload.record import read_reload_record

        record = read_reload_record(attached.data_dir)
        return record if record is not None and record.owner_pid == attached.pid else None

    # -- live reload ---------------------------------------------------------------------

    def _watch(self, server: EmbeddedAgentServer, launched: float) -> None:
        """Live reload of ``server``; an edit made since it was ``launched`` (before the
        project could be watched) reloads it too."""
        from agent_tui.local.live_reload.reloader import LiveReload

        def report(event: ReloadEvent) -> None:
            self._on_loop(self._on_reload, event)

        watcher = LiveReload(server, report)
        try:
            watcher.start(changed_since=launched)
        except Exception:  # the server works without it: say so in the log
            logger.exception("live reload could not start")
            return
        if not watcher.wait_ready():
            logger.warning("live reload is not watching the project: %s", watcher.error)
        self.live_reload = watcher

    def _watch_until_fixed(self, config: Path, error: BaseException) -> None:
        """After a failed start: watch the project (with reload on) so that a save that
        fixes it starts the server again (`broken_start.FixWatch`)."""
        from agent_tui.local import DEMO_CONFIG
        from agent_tui.local.live_reload.broken_start import FixWatch, GraphsDidNotLoad

        listener = self._on_fix
        if not self.reload or listener is None or config == DEMO_CONFIG:
            return
        if self._cancel_build.is_set():
            return  # stopped while starting (the app quits): nothing to watch for

        def report(event: FixEvent) -> None:
            self._on_loop(listener, event)

        check_first = isinstance(error, GraphsDidNotLoad)
        watcher = FixWatch(config, report, check_graphs_first=check_first, loaded=self._config)
        try:
            watcher.start()
        except Exception:  # the user can still retry with `r`
            logger.exception("cannot watch %s for a fix", config)
            return
        self.fix_watch = watcher
        if not watcher.wait_ready():
            logger.warning("not watching %s for a fix", config)

    # -- stopping and describing ---------------------------------------------------------

    def stop(self) -> None:
        """Stop watching and the server this app started (never another process's);
        safe to call any number of times."""
        self._cancel_build.set()
        watcher, self.live_reload = self.live_reload, None
        if watcher is not None:
            watcher.stop()
        fix_watch, self.fix_watch = self.fix_watch, None
        if fix_watch is not None:
            fix_watch.stop()
        if self.server is not None:
            self.server.stop()

    def about(self, url: str) -> list[tuple[str, str]]:
        """The home screen's rows about the local server, after the context's."""
        attached = self.attached
        if attached is not None:
            owner = f"process {attached.pid}" if attached.pid is not None else "another process"
            rows = [
                (
                    "Server",
                    f"{url}  (local: belongs to {owner}, keeps running after this app exits)",
                ),
                ("Project", attached.config or "unknown"),
                ("Data", f"{attached.data_dir}  (threads and assistants persist here)"),
            ]
            if self.owner_reloads:
                rows.append(("Reload", f"on: {owner} reloads the server on an edit; shown here"))
            return rows
        server = self.server
        if server is None:
            return [("Server", url)]
        import sys

        rows = [
            ("Server", f"{url}  (local: started by agent-tui, stops when it exits)"),
            ("Project", str(server.config_path)),
            ("Data", f"{server.data_dir}  (threads and assistants persist here)"),
            ("Server log", str(server.log_file)),
        ]
        if server.python != sys.executable:
            rows.append(("Environment", f"{Path(server.python).parent.parent}  (built by uv)"))
        if self.live_reload is not None:
            rows.append(("Reload", "on: an edit to the project reloads the server"))
        return rows
