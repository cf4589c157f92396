"""The app's side of the project's local agent server: one per project, whoever runs it.

`LocalSession` gives the app a URL for the `local` context:

- when another process (a second `agent-tui`, `agent-tui serve`) runs the project's server,
  it waits for that server to answer and uses it, and never stops it;
- else it builds the project's environment (`project_env`, progress to the start-up
  screen), starts the embedded server on it, and stops it when the app exits;
- with live reload on (the default from the command line), it watches the project and
  reloads the server on change (`live_reload`), reporting each reload to the app.

Headless (no Textual): the start-up screen is reached through the `StartupProgress`
protocol, and every report from a worker thread through the app's ``call_from_thread``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.settings.target import LocalServer

if TYPE_CHECKING:
    from agent_tui.local import EmbeddedAgentServer, RunningServer
    from agent_tui.local.live_reload import LiveReload, ReloadEvent

logger = logging.getLogger(__name__)


class StartupProgress(Protocol):
    """What the session tells the start-up screen."""

    def follow(
        self, heading: str, log_source: Callable[[], Sequence[str]] | None = None
    ) -> None: ...

    def show_build(self, text: str, done: int, total: int | None) -> None: ...


ReloadListener = Callable[["ReloadEvent"], None]
OnLoop = Callable[..., Any]
"""``App.call_from_thread``: runs a callable on the app's loop, from a worker thread."""


class LocalSession:
    def __init__(
        self,
        *,
        on_loop: OnLoop,
        on_reload: ReloadListener,
        on_status: Callable[[str], None],
        reload: bool = False,
        start_timeout: float | None = None,
    ) -> None:
        self._on_loop = on_loop
        self._on_reload = on_reload
        self._on_status = on_status
        self.reload = reload
        self.start_timeout = start_timeout
        self.server: EmbeddedAgentServer | None = None
        """The server this app started and owns."""
        self.attached: RunningServer | None = None
        """Another process's server this app uses, when it does."""
        self.live_reload: LiveReload | None = None
        self._cancel_build = threading.Event()
        """Set by `stop`: a build under way ends (uv killed), so quitting does not wait."""

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
        self.attached = None
        from agent_tui.local import (
            EmbeddedServerError,
            ServerAlreadyRunning,
            default_langgraph_config,
            local_server_data_dir,
            running_server,
        )

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
        return ready.url

    async def _start(self, config: Path, data_dir: Path, startup: StartupProgress) -> str:
        from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer

        python = await self._project_python(config, startup)
        # The demo graphs are agent-tui's own code: nothing of the user's to watch.
        reload = self.reload and config != DEMO_CONFIG
        server = EmbeddedAgentServer(config, data_dir=data_dir, python=python, hold_listener=reload)
        self.server = server  # set before start: shutdown must find it
        startup.follow(f"Starting a local agent server for {config}", server.log_lines)
        await asyncio.to_thread(server.start)
        if self.start_timeout is None:
            await server.wait_until_ready_async()
        else:
            await server.wait_until_ready_async(self.start_timeout)
        logger.info(
            "local agent server ready at %s after %.1fs (its log: %s)",
            server.url,
            server.startup_seconds or 0.0,
            server.log_file,
        )
        if reload:
            await asyncio.to_thread(self._watch, server)
        return server.url

    async def _project_python(self, config: Path, startup: StartupProgress) -> str:
        """The interpreter for `config`'s server: the project's environment, built first
        (uv's progress on the start-up screen) when what it declares changed."""
        from agent_tui.local import EmbeddedServerError, LangGraphConfigError, load_langgraph_config
        from agent_tui.local.project_env import BuildProgress, ensure_environment

        try:
            loaded = load_langgraph_config(config)
        except LangGraphConfigError as exc:
            raise EmbeddedServerError(f"cannot start the agent server: {exc}") from None

        def report(progress: BuildProgress) -> None:
            self._on_loop(startup.show_build, progress.shown, progress.done, progress.total)

        startup.follow(f"Preparing the environment of {config}")
        self._cancel_build = cancel = threading.Event()
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

    # -- live reload ---------------------------------------------------------------------

    def _watch(self, server: EmbeddedAgentServer) -> None:
        from agent_tui.local.live_reload import LiveReload

        def report(event: ReloadEvent) -> None:
            self._on_loop(self._on_reload, event)

        watcher = LiveReload(server, report)
        try:
            watcher.start()
        except Exception:  # the server works without it: say so in the log
            logger.exception("live reload could not start")
            return
        if not watcher.wait_ready():
            logger.warning("live reload is not watching the project: %s", watcher.error)
        self.live_reload = watcher

    # -- stopping and describing ---------------------------------------------------------

    def stop(self) -> None:
        """Stop watching and the server this app started (never another process's);
        safe to call any number of times."""
        self._cancel_build.set()
        watcher, self.live_reload = self.live_reload, None
        if watcher is not None:
            watcher.stop()
        if self.server is not None:
            self.server.stop()

    def about(self, url: str) -> list[tuple[str, str]]:
        """The home screen's rows about the local server, after the context's."""
        attached = self.attached
        if attached is not None:
            owner = f"process {attached.pid}" if attached.pid is not None else "another process"
            return [
                (
                    "Server",
                    f"{url}  (local: belongs to {owner}, keeps running after this app exits)",
                ),
                ("Project", attached.config or "unknown"),
                ("Data", f"{attached.data_dir}  (threads and assistants persist here)"),
            ]
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
