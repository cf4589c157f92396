"""The first thing the user sees: progress while the server starts or is reached, or why not.

The screen is passive: the app's connect worker tells it what is happening
(`start`, `fail`, `fail_with` an error) and it polls the server's log for a status line,
so the user sees the server's own progress instead of a bare spinner. After a failed
local start the app may keep watching the project (`local.broken_start`): `show_watch`
says so under the failure, and `still_broken` shows where a save left the graphs broken.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer, Header, LoadingIndicator, Static

from agent_tui.settings.logs import log_file
from agent_tui.settings.target import RemoteServer, ServerTarget
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.widgets import ProgressBar

LogSource = Callable[[], Sequence[str]]

# langgraph-api logs through structlog:
#   2026-11-21T16:06:03.774944Z [info     ] Starting In-Memory runtime [module] key=value ...
# Only the event text says anything to a user waiting for the server.
_STRUCTLOG_LINE = re.compile(r"^\S+Z \[\s*\w+\s*\] (?P<event>.*?)(?:\s+\[[\w.]+\].*)?$")
# The stdlib logging format: `INFO:langgraph_api.cli:message`.
_STDLIB_LINE = re.compile(r"^[A-Z]+:[\w.]+:(?P<event>.*)$")


def status_from_log_line(line: str) -> str:
    """The readable part of one server log line."""
    line = line.strip()
    match = _STRUCTLOG_LINE.match(line) or _STDLIB_LINE.match(line)
    return match.group("event").strip() if match else line


# The last line of a Python traceback: `package.module.SomeError: message`.
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception): .+")


def probable_cause(lines: Sequence[str]) -> str | None:
    """The last exception line in a server log: usually what went wrong."""
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line.strip()):
            return line.strip()
    return None


def latest_status(lines: Sequence[str]) -> str:
    """The last log line that says something, for the status line."""
    for line in reversed(lines):
        status = status_from_log_line(line)
        if status:
            return status
    return ""


def graph_failure_text(problems: Sequence[object], log_file: Path | None) -> str:
    """Where the graphs break (one ``file:line: Error: message`` a problem), and where the
    server's own log is."""
    from agent_tui.local.live_reload.graph_check import GraphProblem, missing_package_advice

    text = "\n".join(str(problem) for problem in problems)
    advice = missing_package_advice([p for p in problems if isinstance(p, GraphProblem)])
    text += f"\n\n{advice}" if advice else ""
    return text + (f"\n\nthe server's full log: {log_file}" if log_file is not None else "")


def connect_failure_title(target: ServerTarget, context_name: str, error: BaseException) -> str:
    """What did not work: the server that was not reached (or what it answered), or the
    local server that did not start."""
    if not isinstance(target, RemoteServer):
        return "The local agent server did not start"
    from agent_tui.client.errors import HttpStatusError

    # A server that answered with an error status was reached: say what it said.
    if isinstance(error, HttpStatusError) and error.status_code is not None:
        title = f"{target.url} answered {error.status_code} ({error.title})"
    else:
        title = f"Could not connect to {target.url}"
    return title + (f" (context {context_name})" if context_name != target.url else "")


class StartupScreen(AgentScreen[None]):
    HELP_TITLE = "start-up"
    # Absolute, so the app can read the same file before the first paint (see `AgentTuiApp`).
    CSS_PATH = Path(__file__).with_name("startup.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "retry", "Retry", id="startup.retry"),
        # Hidden: the footer already shows ctrl+q for quitting.
        Binding("q", "app.quit", "Quit", show=False, id="startup.quit"),
    ]

    # init=False: nothing to do for the initial False, and the watcher's refresh_bindings
    # would have the footer compose its keys twice before the first paint (start-up time).
    failed: reactive[bool] = reactive(False, init=False)

    class Ready(Message):
        """The screen is painted: the app may start working and report progress."""

    class RetryRequested(Message):
        """The user asked to try starting/connecting again."""

    def __init__(self, heading: str) -> None:
        super().__init__()
        self._heading = heading
        self._log_source: LogSource | None = None
        self._build_line = ""
        self._started = time.monotonic()
        self.attempt = 0

    def compose(self) -> ComposeResult:
        # Start-up time: the build's progress bar and the failure panel (eleven widgets,
        # ~10% of the first paint's time) are mounted when first needed.
        yield Header()
        with Vertical(id="startup"):
            yield Static(server_text(self._heading), id="heading")
            yield LoadingIndicator()
            yield Static(id="status")
        yield Footer()

    def _build_progress(self) -> ProgressBar:
        """The project's environment build's progress bar (mounted on first use)."""
        from textual.widgets import ProgressBar

        for bar in self.query("#build-progress").results(ProgressBar):
            return bar
        bar = ProgressBar(id="build-progress", show_eta=False)
        self.query_one("#startup", Vertical).mount(bar, before="#status")
        return bar

    def _hide_build_progress(self) -> None:
        for bar in self.query("#build-progress"):
            bar.display = False

    def _failure(self) -> Widget:
        """The failure panel (mounted on first use, each part at once, so that it can be
        filled in and queried before its first frame)."""
        for panel in self.query("#failure"):
            return panel
        panel = Vertical(id="failure")
        self.query_one("#startup", Vertical).mount(panel)
        scroll = VerticalScroll(id="error-scroll")
        parts = ("error-title", "error-hint", "error-watch")
        panel.mount(*(Static(id=part) for part in parts), scroll)
        scroll.mount(Static(id="error-message"), Static(id="error-details"))
        return panel

    def on_mount(self) -> None:
        self.set_interval(0.25, self._show_status)
        # Start-up time: only after the first paint. The connect worker then imports the
        # client in a thread, which would hold the interpreter lock while the first frame
        # is still being laid out and drawn.
        self.call_after_refresh(self.post_message, self.Ready())

    def start(self, heading: str) -> None:
        """Show progress for a new attempt."""
        self.attempt += 1
        self._started = time.monotonic()
        self._log_source = None
        self._build_line = ""
        self._hide_build_progress()
        self.failed = False
        self.follow(heading)

    def follow(self, heading: str, log_source: LogSource | None = None) -> None:
        """Say what is being done; `log_source` returns the server's log lines so far."""
        self._heading = heading
        self._log_source = log_source
        if log_source is not None:  # the server starts: the environment is done
            self._hide_build_progress()
        self.query_one("#heading", Static).update(server_text(heading))
        self._show_status()

    def show_build(self, text: str, done: int, total: int | None) -> None:
        """Progress of the project's environment build: a bar once the number of
        packages is known, and `text` (the step, uv's latest line) below it."""
        bar = self._build_progress()
        bar.display = True
        bar.update(total=total, progress=done)
        self._build_line = text
        self._show_status()

    def fail(
        self,
        title: str,
        message: str,
        details: Sequence[str] = (),
        *,
        details_title: str = "last lines of the server's log:",
    ) -> None:
        """Show why it did not work: `message` says what happened, `details` are the
        server's last log lines, or uv's (shown below it under `details_title`,
        scrollable)."""
        self._failure()
        self.failed = True
        # Shown by `show_build` with an inline style, which the "-failed" class cannot
        # hide: an unfinished bar would keep pulsing under the failure.
        self._hide_build_progress()
        if self.attempt > 1:  # so a retry that fails the same way visibly did something
            title = f"{title} (attempt {self.attempt})"
        self.query_one("#error-title", Static).update(server_text(title, style="bold"))
        hint = Text.assemble(
            ("r", "bold"), " retry   ", ("ctrl+q", "bold"), " quit   log: ", str(log_file())
        )
        self.query_one("#error-hint", Static).update(hint)
        self.query_one("#error-watch", Static).display = False
        cause = probable_cause(details)
        if cause:
            message = f"{message}\n\n{cause}"
        self.query_one("#error-message", Static).update(server_text(message))
        detail_widget = self.query_one("#error-details", Static)
        if details:
            text = Text(f"{details_title}\n", style="bold")
            text.append_text(server_text("\n".join(details)))
            detail_widget.update(text)
        detail_widget.display = bool(details)
        scroll = self.query_one("#error-scroll", VerticalScroll)
        scroll.focus()  # arrow keys and page keys scroll a long error
        scroll.scroll_home(animate=False)

    def fail_with(self, title: str, error: BaseException) -> str:
        """Show why `error` stopped the start, under `title` (`connect_failure_title`),
        with the server's last log lines, or uv's when the project's environment could
        not be built (under a title of its own); returns the title shown."""
        from agent_tui.local import EmbeddedServerError
        from agent_tui.local.live_reload.broken_start import GraphsDidNotLoad
        from agent_tui.local.project_env.environment import EnvironmentBuildError

        if isinstance(error, GraphsDidNotLoad):
            # Where it broke, as a reload says it; not the server's log, whose advice
            # (`pip install -e .`) does not apply to a project agent-tui installs.
            title = f"{title}: its graphs do not load"
            self.fail(title, graph_failure_text(error.problems, error.log_file))
        elif isinstance(error, EnvironmentBuildError):
            title = "The project's environment could not be built"
            self.fail(title, error.reason, error.lines[-40:], details_title="uv said:")
        elif isinstance(error, EmbeddedServerError):
            self.fail(title, error.reason, error.log_lines)
        else:
            self.fail(title, str(error))
        return title

    def show_watch(self, line: str) -> None:
        """Under a failure: the project is being watched, and what a save did."""
        watch = self._failure().query_one("#error-watch", Static)
        watch.update(server_text(line))
        watch.display = True

    def still_broken(self, problems: Sequence[object], log_file: Path | None) -> None:
        """A save did not fix the graphs: where they break now, under the same title."""
        message = self._failure().query_one("#error-message", Static)
        message.update(server_text(graph_failure_text(problems, log_file)))

    def _show_status(self) -> None:
        if self.failed:
            return
        elapsed = f"{time.monotonic() - self._started:.0f}s"
        if self._log_source is None:
            latest = self._build_line
        else:
            # Before its first line the server process is still importing langgraph-api.
            latest = latest_status(self._log_source()) or "loading the agent server…"
        status = server_text(elapsed, style="dim")
        if latest:
            status.append(" · ", style="dim")
            status.append_text(server_text(latest))
        self.query_one("#status", Static).update(status)

    def watch_failed(self, failed: bool) -> None:
        self.set_class(failed, "-failed")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return self.failed  # hidden from the footer while an attempt runs
        return True

    def action_retry(self) -> None:
        self.post_message(self.RetryRequested())
