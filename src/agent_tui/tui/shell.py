"""The app shell: what every screen relies on, kept out of tui/app.py (which owns connecting).

`ShellApp` implements the whole app contract (`app_contract.AgentApp`), with defaults for
an app that is not connected: no client, no contexts, no control plane. `AgentTuiApp`
subclasses it and overrides what it owns; test harnesses subclass it too. Screens use,
through `self.agent_app`:

- `refuse_if_readonly(what) -> bool`: the one guard in front of every mutation. In
  read-only mode it tells the user why ("Read-only mode: cannot delete a thread
  (started with --readonly)") and returns True; the caller then does nothing.
- `report_error(error, doing=...)`: the one way to tell the user about a failure
  (`error_messages.describe_error`, `markup=False`); a connection failure also marks the
  connection offline in the header, and `note_online()` marks it back.
- `await open_resource(name, argument)`: open a screen by route name
  (`tui/routes.py`); unregistered ones say "not available yet".
- `selection`: the context > assistant > thread trail the header shows (`tui/selection.py`).
- `await run_command(":threads")`: what `:` command mode and the palette run.

Keys: `?` help, `:` command mode, `ctrl+p` palette (with `ShellCommands`). The theme
picked in the app persists (`settings/ui_state.py`); `keymap` remaps bindings by id.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segments
from textual import on, work
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.settings.ui_state import save_ui_state, saved_theme
from agent_tui.text.sanitize import clean_text
from agent_tui.tui import routes
from agent_tui.tui.commands import SHELL_COMMANDS, parse_command
from agent_tui.tui.crash_output import crash_traceback
from agent_tui.tui.palette import ShellCommands
from agent_tui.tui.selection import Selection
from agent_tui.tui.widgets.worker_failures import WorkerFailed

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient, ControlPlaneClient
    from agent_tui.local.control_plane import LocalControlPlane
    from agent_tui.settings.config import AgentTuiConfig
    from agent_tui.settings.contexts import Context
    from agent_tui.traces.untraced import ServerTracing

logger = logging.getLogger(__name__)

# The screen stack once connected: Textual's default screen, then the home screen.
_HOME_DEPTH = 2


class ShellApp(App[None]):
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {ShellCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", id="app.help"),
        # A priority binding: the command line is pushed as `:` is read, so the keys
        # typed right after it go to the line, not to the screen below (a non-priority
        # binding runs once the key has bubbled up from the focused widget, after the
        # next keys were already sent there: `:store x⏎` typed fast, or read in one go
        # after a busy moment, lost its letters, or ran them as that screen's keys).
        Binding("colon", "command_mode", "Command", id="app.command_mode", priority=True),
    ]

    # What the header shows: starting… / connected · URL / offline · URL / failed.
    connection_status: reactive[str] = reactive("")

    readonly: bool = False
    # Why read-only, for the refusal message (the context owner sets it for a context).
    readonly_reason: str = "started with --readonly"

    def __init__(self, *, keymap: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.selection = Selection()
        # What the app contract asks, as an app that has not connected anywhere has it.
        self.client: AgentServerClient | None = None
        self.config: AgentTuiConfig | None = None
        self.context: Context | None = None
        self.context_overrides = ContextOverrides()
        self._offline = False
        self._online_status = ""
        # The server's graphs may have changed (a live reload): what was learnt of them
        # (a graph's input schema, say) is asked again by whoever subscribed.
        self.graphs_changed: Signal[None] = Signal(self, "graphs_changed")
        self._command_history: list[str] = []  # this session's `:` lines, oldest first
        self._startup_theme = saved_theme()
        self._keymap = dict(keymap or {})
        if keymap:
            self.set_keymap(dict(keymap))

    # -- read-only --------------------------------------------------------------------

    def refuse_if_readonly(self, what: str) -> bool:
        """True (after telling the user) when read-only mode forbids `what`, e.g. "delete a thread"."""
        if not self.readonly:
            return False
        self.notify(
            f"Read-only mode: cannot {what} ({self.readonly_reason})",
            title="Refused",
            severity="warning",
            markup=False,
        )
        return True

    # -- errors and the connection state ---------------------------------------------

    def report_error(self, error: BaseException, *, doing: str | None = None) -> None:
        """Tell the user what went wrong (and mark the connection offline if it is that)."""
        # Imported here: the client package loads httpx and pydantic, which the first
        # paint does not need (see tui/app.py).
        from agent_tui.client.error_text import describe_error
        from agent_tui.client.errors import ConnectionFailed

        title, body = describe_error(error, doing)
        if isinstance(error, ConnectionFailed):
            self.note_offline(error.url or "")
        self.notify(body, title=title, severity="error", timeout=10, markup=False)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification, inert: one often quotes a server's name or words, and a
        toast draws its text as it is (escape sequences and bidi overrides included).
        Never markup, whatever `markup` says (a widget's `notify` passes True by default):
        a quoted `[link=file:…]` would break the toast, `[@click=…]` act."""
        super().notify(
            clean_text(message),
            title=clean_text(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def _handle_exception(self, error: Exception) -> None:
        # Textual's one way in for an exception nobody handled (it has no public hook):
        # it ends the app and prints the traceback on the terminal it gives back, which
        # is gone with a closed window or a cleared screen. The exit message points to
        # the log ("details in …"), so the traceback must be there too (redacted).
        logger.critical("agent-tui stopped on an unexpected error", exc_info=error)
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        # Textual's own (called by `_handle_exception` for an error without `__rich__`)
        # prints each frame's locals on the terminal: a key held in one would be shown.
        # The same exit, with a traceback that shows none and redacts the keys.
        error = sys.exc_info()[1] or self._exception
        self.bell()
        if error is not None:
            rendered = self.console.render(crash_traceback(error), self.console.options)
            self._exit_renderables.append(Segments(rendered))
        self._close_messages_no_wait()

    @on(WorkerFailed)
    def _report_worker_failure(self, message: WorkerFailed) -> None:
        self.report_worker_failure(message.worker.group, message.worker.error)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.report_worker_failure(event.worker.group, event.worker.error)

    def report_worker_failure(self, group: str, error: BaseException | None) -> None:
        """The one place for errors no worker handled, the app's own and those every
        screen, modal and widget passes on (`widgets/worker_failures.py`): log them in
        full, tell the user."""
        logger.error("worker group %r failed", group, exc_info=error)
        text = clean_text(str(error) or type(error).__name__)
        self.report_error(error or RuntimeError(text))

    def note_offline(self, url: str) -> None:
        """A request could not reach `url`: the header says offline until one works."""
        from agent_tui.client.error_text import server_of

        self._offline = True
        self.connection_status = f"offline · {server_of(url)}" if url else "offline"

    def note_online(self) -> None:
        """A request just worked: if the connection was marked offline, it is back."""
        if self._offline:
            self.connection_status = self._online_status or "connected"

    def _watch_connection_status(self, status: str) -> None:
        # Any other status (connecting, connected after a context switch…) is the truth
        # from now on, and what `note_online` goes back to.
        if not status.startswith("offline"):
            self._offline = False
            self._online_status = status

    # -- navigation -------------------------------------------------------------------

    async def open_resource(self, name: str, argument: str | None = None) -> bool:
        """Open the screen registered as `name`; False (after saying why) if it cannot."""
        route = routes.get(name)
        if route is None:
            self.notify(f"No screen called {name!r}", severity="error", markup=False)
            return False
        if route.needs_agent_server and self.client is None:
            self.notify("Not connected to a server yet", severity="warning", markup=False)
            return False
        if route.name == "info":
            await self.go_home()
            return True
        if route.argument and not argument:
            self.notify(f":{route.name} needs an {route.argument}", severity="error", markup=False)
            return False
        if route.takes_thread_id and argument and self.client is not None:
            from agent_tui.client.errors import ApiError
            from agent_tui.threads.lookup import ThreadNotFound, resolve_thread_id

            try:
                argument = await resolve_thread_id(self.client, argument)
            except ThreadNotFound as error:
                self.notify(str(error), title=f":{route.name}", severity="warning", markup=False)
                return False
            except ApiError as error:
                self.report_error(error, doing=f"find thread {argument}")
                return False
        try:
            screen = route.factory()(self, argument)
        except routes.RouteUnavailable as error:
            # The factory's own words: "not available yet", or what is wrong with the argument.
            self.notify(str(error), title=f":{route.name}", severity="warning", markup=False)
            return False
        if not route.drill_down:
            await self.go_home()
        await self.push_screen(screen)
        return True

    async def go_home(self) -> None:
        """Back to the home screen (server info), closing everything above it."""
        while len(self.screen_stack) > _HOME_DEPTH:
            await self.pop_screen()

    async def action_open_resource(self, name: str, argument: str | None = None) -> None:
        await self.open_resource(name, argument)

    # -- command mode, help, palette --------------------------------------------------

    def context_names(self) -> list[str]:
        """The contexts of the config file, if the config is loaded."""
        return self.config.context_names() if self.config is not None else []

    def command_arguments(self) -> dict[str, list[str]]:
        """Known argument values per command word, for completion."""
        return {"ctx": self.context_names(), "theme": sorted(self.available_themes)}

    def command_words(self) -> list[str]:
        return [*routes.names(), *SHELL_COMMANDS]

    def action_command_mode(self) -> None:
        from agent_tui.tui.screens.command_line import CommandLineScreen

        if self.screen.is_modal:
            # None over a modal (the command line's own included), as when the binding was
            # not a priority one (a modal hides the app's others). A field that takes `:` as
            # text keeps it: Textual leaves out a priority binding a focused widget consumes
            # (`check_consume_key`: Input, TextArea, Select).
            raise SkipAction

        def run(line: str | None) -> None:
            if line:
                if line in self._command_history:
                    self._command_history.remove(line)
                self._command_history = [*self._command_history, line][-50:]
                self.run_worker(self.run_command(line), group="command", exit_on_error=False)

        self.push_screen(CommandLineScreen(self._command_history), run)

    async def run_command(self, text: str) -> bool:
        """Run one command line (`:threads`, `thread <id>`, `ctx prod`, `q`…)."""
        command = parse_command(text)
        if command is None:
            return False
        name, argument = command.name, command.argument
        if name in {"q", "quit"}:
            await self.action_quit()
            return True
        if name == "help":
            self.action_help()
            return True
        if name == "theme":
            return self.switch_theme(argument or "")
        if name == "ctx":
            return await self.switch_to_context(argument)
        if routes.get(name) is not None:
            return await self.open_resource(name, argument)
        known = ", ".join(f":{word}" for word in [r.name for r in routes.routes()] + ["ctx", "q"])
        self.notify(
            f"Unknown command {str(command)!r}. Try {known}.",
            title="Unknown command",
            severity="error",
            markup=False,
        )
        return False

    async def switch_to_context(self, name: str | None) -> bool:
        if not name:
            self.action_pick_context()  # `:ctx` alone: the context picker
            return True
        return self.switch_context(name)

    def switch_context(self, name: str) -> bool:
        """Connect to the config file's context `name`; an app without contexts cannot."""
        self.notify("Contexts are not available yet", severity="warning", markup=False)
        return False

    def action_pick_context(self) -> None:
        """Open the context picker; an app without contexts has none."""
        self.notify("Contexts are not available yet", severity="warning", markup=False)

    # -- the control plane and other servers ------------------------------------------

    @property
    def control_plane_description(self) -> str:
        """Which control plane answers; "" in an app that has none."""
        return ""

    @property
    def local_control_plane(self) -> LocalControlPlane | None:
        """The control plane this app started; an app that is not connected has none."""
        return None

    async def get_control_plane(self) -> ControlPlaneClient:
        """The context's control plane client; an app that is not connected has none."""
        from agent_tui.client.errors import ApiError

        raise ApiError("this app has no control plane")

    @property
    def server_tracing(self) -> ServerTracing:
        """An app that started no server traces none here."""
        return "not-started-here"

    def open_server_context(
        self,
        name: str,
        url: str,
        api_key: str | None = None,
        *,
        workspace_id: str | None = None,
        deployment: str | None = None,
        then: str = "assistants",
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """Switch to the agent server at `url`; only an app with contexts can."""
        self.notify("This app cannot switch servers", markup=False)

    def switch_theme(self, name: str) -> bool:
        if name not in self.available_themes:
            self.notify(
                f"No theme called {name!r}. Known: {', '.join(sorted(self.available_themes))}",
                severity="error",
                markup=False,
            )
            return False
        self.theme = name
        return True

    def action_help(self) -> None:
        from agent_tui.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen.for_screen(self.screen))

    # -- theme persistence ------------------------------------------------------------

    def on_mount(self) -> None:
        configured = self.config.theme if self.config is not None else None
        if configured is not None and configured not in self.available_themes:
            self._report_unknown_theme(configured)
        theme = self._startup_theme or configured
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self._keymap:
            self._check_keymap()

    @work(thread=True, group="keymap-check", exit_on_error=False)
    def _check_keymap(self) -> None:
        # In a thread: the catalogue imports every screen module (a few hundred ms).
        from agent_tui.tui.keymap_catalog import catalog, unknown_ids, unknown_ids_message

        known = catalog()
        unknown = unknown_ids(self._keymap, known)
        if unknown:
            logger.warning("unknown binding ids in [keymap]: %s", ", ".join(unknown))
            self.call_from_thread(
                self.notify,
                unknown_ids_message(unknown, known),
                title="Config: keymap",
                severity="warning",
                markup=False,
                timeout=15,
            )

    def _report_unknown_theme(self, theme: str) -> None:
        """Said like the config's other mistakes (file, key, problem); the app goes on
        with the theme it would have had without the setting."""
        import difflib

        from agent_tui.settings.config import config_path

        known = sorted(self.available_themes)
        close = difflib.get_close_matches(theme, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        message = (
            f"{config_path()}: ui.theme: no theme called {theme!r}{hint}; known: {', '.join(known)}"
        )
        logger.warning("%s", message)
        self.notify(message, title="Config: theme", severity="warning", markup=False, timeout=15)

    def _remember_theme(self, theme: Theme) -> None:
        try:
            save_ui_state({"theme": theme.name})
        except OSError as error:
            logger.warning("could not save the theme: %s", error)
