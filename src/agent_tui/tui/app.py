"""The Textual app. It owns the server connections (`server_connections`: the clients and
the local control plane) and the embedded server, and decides which screen shows; the
screens do the rest.

Start-up: the app opens at once on `StartupScreen`, and an async worker starts the
local server (or reaches the remote one) while the screen shows its progress. When
`GET /info` answers, `ServerInfoScreen` replaces it. On failure the start-up screen
shows why, and `r` tries again; a local project that did not start is watched, and a save
that fixes it starts it again (`tui.local_status`).

One local server per project (`agent_tui.local.supervisor.lock`): when another process
(a second agent-tui, `agent-tui serve`) already runs the server of the project's data
folder, the app connects to it, shows its reloads (`tui.local_status`) and leaves it
running on exit; once that server is gone, a retry (or `:ctx local`) starts the app's own.

Contexts (`agent_tui.settings.contexts`): the app runs on one context at a time. `switch_context`
(`:ctx NAME`, the context picker; `tui/context_switching.py`) re-reads the config file, and connects again through
the same start-up screen and worker; the embedded server keeps running for a switch
back to `local`. `readonly_reason` says whether --readonly or the context forbids changes.

The client (httpx, pydantic), the embedded server supervisor and the screens that use
them take about as long to import as Textual itself, so this module imports them only
in the connect worker, in a thread, after the first paint. Meanwhile the local server's
process starts, and `GET /info` and the assistants search go out together, so the home
screen shows its graphs in its first frame (benchmarks/first_screen.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.local.session import LocalSession
from agent_tui.local.supervisor.errors import ended_how
from agent_tui.settings.target import LocalServer, RemoteServer, ServerTarget
from agent_tui.text.sanitize import clean_text
from agent_tui.tui import local_status, stop_signals
from agent_tui.tui.context_switching import ContextSwitching
from agent_tui.tui.screens.startup import StartupScreen, connect_failure_title
from agent_tui.tui.server_connections import ServerConnections

if TYPE_CHECKING:
    from textual.timer import Timer

    from agent_tui.client import ControlPlaneClient
    from agent_tui.local import EmbeddedAgentServer, RunningServer
    from agent_tui.local.control_plane import LocalControlPlane
    from agent_tui.local.live_reload.broken_start import FixEvent
    from agent_tui.local.live_reload.reloader import ReloadEvent
    from agent_tui.settings.config import AgentTuiConfig
    from agent_tui.settings.contexts import Context
    from agent_tui.traces.untraced import ServerTracing
    from agent_tui.tui.screens.server_info import ServerInfoScreen

logger = logging.getLogger(__name__)

OWNER_CHECK_SECONDS = 2.0
"""How often an app using another process's local server looks whether it still runs."""
HOME_CSS_PATH = StartupScreen.CSS_PATH.with_name("server_info.tcss")
"""`ServerInfoScreen.CSS_PATH`, named without importing that screen (it imports the client)."""


def _import_connection_modules() -> None:
    try:
        import agent_tui.client
        import agent_tui.local
        import agent_tui.tui.screens.server_info  # noqa: F401
    finally:
        from agent_tui.tui.gc_tuning import resume_after_startup

        resume_after_startup()  # held off for the start-up by `cli.main`


class AgentTuiApp(ContextSwitching):
    TITLE = "agent-tui"
    # Start-up time: the start-up and home screens' stylesheets, read with the app's (read
    # when a screen is pushed, one made Textual parse all CSS again, ~20 ms, before the
    # screen's first paint). The same files and precedence either way (a screen's CSS_PATH
    # is not scoped to it, and these two are the first screens any session opens).
    CSS_PATH: ClassVar[list[str | PurePath]] = [StartupScreen.CSS_PATH, HOME_CSS_PATH]
    context: Context  # always one here (`_use_context`), unlike in a bare shell
    # The footer's right end goes to the screen's keys too: ctrl+p is in `?` help.
    CSS = "Footer FooterKey.-command-palette { display: none; }"
    # Textual's own app bindings, redeclared to give each an id (keys are remapped by id).
    BINDINGS: ClassVar[list[BindingType]] = [
        # Off the footer, to leave its 80 columns to the screen's keys; `?` lists it.
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
        Binding("ctrl+c", "help_quit", show=False, system=True, id="app.help_quit"),
        Binding(
            "ctrl+p",
            "command_palette",
            "palette",
            show=False,
            priority=True,
            tooltip="Open the command palette",
            id="app.command_palette",
        ),
    ]

    def __init__(
        self,
        target: ServerTarget | Context,
        *,
        readonly: bool = False,
        config: AgentTuiConfig | None = None,
        keymap: Mapping[str, str] | None = None,
        start_timeout: float | None = None,
        reload: bool = False,
    ) -> None:
        """`target`: a context (`agent_tui.settings.contexts`), or a bare server target.

        `readonly`: --readonly, for the whole session whatever the context. `config`: the
        config file as read at start (contexts are re-read from the file on a switch).
        `start_timeout`: seconds to wait for a local server (None: its own default).
        `reload`: reload the local server when the project's code changes (the command
        line turns it on unless --no-reload).
        """
        super().__init__(keymap=keymap)
        from agent_tui.settings.contexts import Context

        self.config = config
        self._readonly_flag = readonly
        self._use_context(target if isinstance(target, Context) else Context.of_target(target))
        self.local = LocalSession(
            on_loop=self.call_from_thread,
            on_reload=self._show_reload,
            on_status=self._set_connection_status,
            on_fix=self._show_fix,
            on_disk=lambda problem: local_status.show_disk_problem(self, problem, self.local),
            reload=reload,
            start_timeout=start_timeout,
        )
        self.client = None  # the current server's
        # Every client the app made, and the local control plane once started.
        self.connections = ServerConnections(
            current=lambda: self.client, on_online=self.note_online, on_offline=self.note_offline
        )
        # After the next connect: the route to open and the selection to show (e.g. a
        # deployment's assistants, see `open_server_context`).
        self._after_connect: tuple[str, dict[str, str | None]] | None = None
        self.failure: str | None = None  # why the last start/connect failed, if it did
        # Run-level contexts for assistants whose server record kept the wrong one after
        # a version switch (the in-memory runtime bug): every run the app starts passes
        # `context_overrides.context_for_run(assistant_id)`.
        self.context_overrides = ContextOverrides()
        self._startup = StartupScreen(self.target.description)
        self._owner_watch: Timer | None = None
        self._tune_after: ServerInfoScreen | None = None  # see on_server_info_screen_shown
        self._restarting_own = False  # `_check_own_server` is starting it again
        self._remove_stop_signals: Callable[[], None] = lambda: None

    def on_load(self) -> None:
        self._remove_stop_signals = stop_signals.install(self)

    def on_mount(self) -> None:
        # Pushed over the blank default screen rather than being the default screen:
        # only pushed screens can be replaced with `switch_screen`. The connect worker
        # starts when the screen reports `Ready` (its widgets exist then).
        self.push_screen(self._startup)

    def watch_connection_status(self, status: str) -> None:
        self.sub_title = clean_text(status)

    @property
    def control_plane_description(self) -> str:
        return self.connections.control_plane_description

    @property
    def local_control_plane(self) -> LocalControlPlane | None:
        return self.connections.local_control_plane

    async def get_control_plane(self) -> ControlPlaneClient:
        """The current context's control plane client (`ServerConnections.control_plane`):
        the local one, started on first use, for a context that names none."""
        return await self.connections.control_plane(self.context)

    @on(StartupScreen.Ready)
    @on(StartupScreen.RetryRequested)
    def _start_connecting(self) -> None:
        self._connect()

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def _connect(self) -> None:
        startup, target = self._startup, self.target
        self.failure = None
        startup.start(target.description)
        # The local server starts while the client and the home screen are imported (in
        # a thread): its own start-up (langgraph-api, seconds) runs beside that.
        local_url: asyncio.Future[str] | None = None
        if isinstance(target, LocalServer):
            self.connection_status = "starting the local server…"
            local_url = asyncio.ensure_future(self._local_url(target, startup))
            local_url.add_done_callback(lambda done: done.cancelled() or done.exception())
        try:
            await asyncio.to_thread(_import_connection_modules)
            await self._connect_to(startup, target, local_url)
        finally:
            if local_url is not None:
                local_url.cancel()  # this worker was: a context switch, quitting

    async def _local_url(self, target: LocalServer, startup: StartupScreen) -> str:
        return self.local.running_url() or await self.local.url(target, startup)

    async def _connect_to(
        self, startup: StartupScreen, target: ServerTarget, local_url: asyncio.Future[str] | None
    ) -> None:
        from agent_tui.client import ApiError
        from agent_tui.tui.screens.server_info import ServerInfoScreen, request_graphs

        failures: tuple[type[Exception], ...] = (ApiError,)
        if local_url is not None:  # (10-20 ms of imports a remote server needs not)
            from agent_tui.local import EmbeddedServerError
            from agent_tui.local.project_env.environment import EnvironmentBuildError

            failures = (ApiError, EmbeddedServerError, EnvironmentBuildError)
        try:
            workspace: str | None = None
            headers: tuple[tuple[str, str], ...] = ()
            if local_url is not None:
                url = await local_url
            else:
                assert isinstance(target, RemoteServer)
                self.connection_status = f"connecting to {target.url}…"
                url, workspace, headers = target.url, target.workspace_id, target.headers
            client = self.connections.client_for(
                url,
                target.api_key,
                workspace,
                headers,
                started_here=isinstance(target, LocalServer),
            )
            graphs = request_graphs(client)  # with /info: home can draw them at once
            try:
                info = await client.info()
            except BaseException:
                graphs.cancel()
                raise
        except failures as error:
            self._show_failure(startup, target, error)
            return
        if startup is not self._startup:
            graphs.cancel()
            return  # the user switched context meanwhile
        logger.info("connected to %s (%s)", url, clean_text(info.server))
        self.client = client
        self.connection_status = local_status.connected_status(self.local, url)
        # Not awaited: the stack changes at once and the worker ends, so a context switch
        # that cancels this worker can never cancel it halfway through a screen switch.
        while self.screen is not startup and len(self.screen_stack) > 2:
            self.pop_screen()  # e.g. the command palette, opened while waiting
        home = ServerInfoScreen(
            client,
            about=local_status.server_about(self.context, self.local, url),
            info=info,
            graphs=graphs,
            readonly=self.readonly,
        )
        self._tune_after = home
        self.switch_screen(home)
        if self.local.attached is not None:
            self._owner_watch = self.set_interval(OWNER_CHECK_SECONDS, self._check_owner)
            self.call_later(self._check_owner)  # a reload of its that failed shows at once
        elif self.local.server is not None:
            self._owner_watch = self.set_interval(OWNER_CHECK_SECONDS, self._check_own_server)
        if self._after_connect is not None:
            route, selection = self._after_connect
            self._after_connect = None
            self.selection.update(**selection)
            # Queued behind the screen switch above, so it opens on top of the new home.
            self.call_later(self.open_resource, route)

    def on_server_info_screen_shown(self, message: ServerInfoScreen.Shown) -> None:
        """Home shows its graphs: all that lives long is loaded. Once drawn (once a connect):
        the thread view's styles read (tui/styles_ahead.py), the collector tuned (gc_tuning)."""
        if self._tune_after is None or message.home is not self._tune_after:
            return
        from agent_tui.tui.gc_tuning import tune_for_streaming
        from agent_tui.tui.styles_ahead import read_styles_ahead_soon

        self._tune_after = None
        self.call_after_refresh(read_styles_ahead_soon, self, tune_for_streaming)

    def _show_failure(
        self, startup: StartupScreen, target: ServerTarget, error: BaseException
    ) -> None:
        title = connect_failure_title(target, self.context.name, error)
        logger.warning("%s: %s", title, error)
        self.connection_status = "failed"
        self.failure = startup.fail_with(title, error)
        watch = self.local.fix_watch
        if watch is not None and startup is self._startup:
            project, graphs = watch.config_path.parent, watch.check_graphs_first
            startup.show_watch(local_status.watching_line(project, graphs=graphs))

    def _show_fix(self, event: FixEvent) -> None:
        """What a save did to the local project that did not start."""
        if isinstance(self.target, LocalServer):
            server = self.local.server
            log_file = server.log_file if server is not None else None
            local_status.show_fix(self._startup, event, log_file, self._connect)

    # -- contexts ---------------------------------------------------------------------

    def _use_context(self, context: Context) -> None:
        self.context = context
        self.target: ServerTarget = context.target
        reason = "started with --readonly" if self._readonly_flag else context.readonly_reason
        self.readonly = reason is not None
        self.readonly_reason = reason or ""
        self.selection.update(context=context.name, deployment=None, assistant=None, thread=None)

    async def _check_owner(self) -> None:
        """While this app uses another process's local server: show its reloads as the
        owner does; when that server stops (its app quit, `serve` was stopped), start
        this app's own on the same data."""
        attached = self.local.attached
        if attached is None:
            return
        owner = f"process {attached.pid}" if attached.pid is not None else "another process"
        if not await asyncio.to_thread(self.local.owner_gone):
            news = await asyncio.to_thread(self.local.reload_news)
            if news is not None and attached is self.local.attached:
                local_status.show_reload(self, news, attached.url or "", owner=owner)
            return
        logger.info("the local server of %s stopped: starting our own", owner)
        self.notify(
            f"The local agent server of {owner} stopped: starting this app's own on the same "
            "data (threads are kept).",
            title="Local server",
            markup=False,
        )
        self._switch_to(self.context)

    async def _check_own_server(self) -> None:
        """The local server this app started ended on its own (a crash, ``kill -9``):
        say so, and start it again on the same port and data (every answered write is
        kept: `agent_tui.server`); the screens carry on once it answers."""
        server = self.local.server
        if server is None or self._restarting_own:
            return
        code = server.crash_code()
        if code is None:
            return
        how = ended_how(code)
        self._restarting_own = True
        try:
            logger.warning("the local agent server %s: starting it again", how)
            self.connection_status = f"restarting · {server.url}"
            self.notify(
                f"The local agent server {how}. Starting it again on the same port and "
                "data (answered writes are kept).",
                title="Local server",
                severity="warning",
                markup=False,
            )
            try:
                await asyncio.to_thread(server.restart)
            except Exception as exc:  # its log says why: shown as any failure is
                self.connection_status = f"offline · {server.url}"
                self.report_error(exc)
                return
            self.connection_status = local_status.connected_status(self.local, server.url)
            self.notify("The local agent server is running again.", title="Local server")
        finally:
            self._restarting_own = False

    def _switch_to(self, context: Context) -> None:
        logger.info("switching to context %r: %r", context.name, context.target)
        if self._owner_watch is not None:
            self._owner_watch.stop()
            self._owner_watch = None
        self._after_connect = None
        self.workers.cancel_group(self, "connect")
        self._use_context(context)
        self.client = None
        self.connection_status = f"switching to {context.name}…"
        self._startup = StartupScreen(context.target.description)
        # Everything above Textual's default screen belongs to the old context; the new
        # start-up screen reports `Ready` and the connect worker takes it from there. Not
        # awaited: the stack changes at once, and awaiting the removal of a screen whose
        # workers are being cancelled would cancel the awaiting task too.
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(self._startup)

    def report_worker_failure(self, group: str, error: BaseException | None) -> None:
        """As the shell does, but a failed start is said on the start-up screen."""
        if group == "connect" and isinstance(self.screen, StartupScreen):
            logger.error("worker group %r failed", group, exc_info=error)
            self.failure = "unexpected error while starting"
            self.connection_status = "failed"
            self.screen.fail(
                "Unexpected error while starting", clean_text(str(error) or type(error).__name__)
            )
            return
        super().report_worker_failure(group, error)

    async def action_quit(self) -> None:
        # Quitting after a failed start is a failure for scripts and for the CLI,
        # which then says why on the terminal.
        self.exit(return_code=1 if self.failure else 0)

    async def on_unmount(self) -> None:
        # Runs after every screen has closed, so nothing uses the clients any more.
        await self.connections.aclose()
        await asyncio.to_thread(self.stop_local_server)
        self._remove_stop_signals()

    @property
    def stopped_by_signal(self) -> bool:
        return stop_signals.signal_return_code(self.return_code)

    @property
    def local_server(self) -> EmbeddedAgentServer | None:
        """The local server this app started and owns, if it did."""
        return self.local.server

    @property
    def server_tracing(self) -> ServerTracing:
        """Whether the current server's runs are traced to this machine (`traces.untraced`;
        blocking: call this from a thread)."""
        plane = self.local_control_plane
        return self.local.server_tracing(self.target, plane.data_dir if plane else None)

    @property
    def attached_server(self) -> RunningServer | None:
        """Another process's local server this app uses (never stopped here)."""
        return self.local.attached

    def stop_local_server(self) -> None:
        """Stop the embedded server this app started, if it runs (never another process's
        server it is connected to), and its live reload; safe to call any number of times."""
        self.local.stop()

    def _set_connection_status(self, status: str) -> None:
        self.connection_status = status

    def _show_reload(self, event: ReloadEvent) -> None:
        """A live reload of the app's own local server (`tui.local_status`)."""
        server = self.local.server
        url = server.url if server is not None and server.port is not None else ""
        local_status.show_reload(self, event, url)
