"""A revision's build or deploy log, with filters and follow, in a modal.

Read through `/v1/projects/{id}/revisions/{rid}/build_logs` or `…/deploy_logs`, as the
official CLI and the LangSmith deployments UI read them. Keys: `t` switches between the
build log and the deploy log (the agent server's own lines), `L` steps the level filter
(all → DEBUG → … → CRITICAL → all), `/` types text to look for (enter applies it, an
empty one shows every line), `f` follows on or off, `r` reads again, `esc`/`q` close.

Following starts as `tail -f` does: the newest lines, then each new one as the control
plane writes it (polled every `interval` seconds, as the CLI's `logs --follow`); the line
under the title says what is shown and whether it follows (● following, ○ paused). The
build log of a revision that has ended is read once, not followed (it will not grow);
following one stops a poll after its revision ends. A
control plane without the `/v1` logs (an older local one) is read through its
`…/revisions/{rid}/logs` for the build log. Lines are server text: cleaned, shown inertly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Log, Static

from agent_tui.client.control_plane_logs import LogKind, LogQuery
from agent_tui.client.error_text import describe_error
from agent_tui.client.errors import ApiError, NotFound
from agent_tui.client.models.control_plane import TERMINAL_REVISION_STATUSES
from agent_tui.deployments.log_lines import LOG_LEVELS, log_line
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient
    from agent_tui.client.models.control_plane import LogEntry

NEWEST_LINES = 500  # what a view (or the start of following) shows: the newest lines
POLL_INTERVAL = 2.0  # the official CLI's `logs --follow` polls every 2 s


class LogQueryInput(Input):
    """The text to look for; `esc` leaves it for the log (and keeps what was applied)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Back to the log", id="revision_logs.leave_query"),
    ]

    def action_leave(self) -> None:
        self.screen.query_one(Log).focus()


class RevisionLogsScreen(ReportsWorkerFailures, ModalScreen[None]):
    DEFAULT_CSS = """
    RevisionLogsScreen { align: center middle; }
    RevisionLogsScreen > Vertical {
        width: 90%; height: 85%; border: thick $primary; background: $surface;
    }
    RevisionLogsScreen #revision-logs-title {
        text-style: bold; padding: 0 1; background: $primary 30%;
    }
    RevisionLogsScreen #revision-logs-filters { padding: 0 1; }
    RevisionLogsScreen #revision-logs-query { height: 3; margin: 0 1; }
    RevisionLogsScreen Log { height: 1fr; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,q", "dismiss", "Close", id="revision_logs.close"),
        Binding("f", "follow", "Follow on/off", id="revision_logs.follow"),
        Binding("t", "switch_kind", "Build/deploy", id="revision_logs.kind"),
        Binding("L", "next_level", "Level", id="revision_logs.level"),
        Binding("slash", "find", "Query", id="revision_logs.query"),
        Binding("r", "reload", "Reload", id="revision_logs.reload"),
    ]

    def __init__(
        self,
        client: ControlPlaneClient,
        deployment_id: str,
        revision_id: str,
        *,
        kind: LogKind = "build",
        follow: bool = True,
        interval: float = POLL_INTERVAL,
    ) -> None:
        super().__init__()
        self.client = client
        self.deployment_id = deployment_id
        self.revision_id = revision_id
        self.kind: LogKind = kind
        self.level: str | None = None
        self.query_text = ""
        self.following = follow
        self.interval = interval
        self.status: str | None = None  # the revision's, read as the log is
        self.lines: list[str] = []
        self.problem: Text | None = None  # why no lines are shown (an error, no endpoint)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                server_text(f"Logs of revision {self.revision_id}"), id="revision-logs-title"
            )
            yield Static(id="revision-logs-filters")
            yield LogQueryInput(
                placeholder="/ text to look for (enter applies, esc back to the log)",
                id="revision-logs-query",
            )
            yield Log(max_lines=10_000, id="revision-logs")
        yield Footer()

    @property
    def text(self) -> str:
        """What the view shows: the filters line, then the lines (or why there are none)."""
        shown = self.lines or [self.problem.plain if self.problem else "(no lines)"]
        return "\n".join([self._filters_text().plain, *shown])

    def on_mount(self) -> None:
        self.query_one(Log).focus()
        self.set_interval(self.interval, self._poll_status)
        self.action_reload()

    # -- what is shown ------------------------------------------------------------------

    def _filters_text(self) -> Text:
        text = Text()
        text.append(f"{self.kind} log", style="bold")
        text.append(f" · level {self.level or 'all'}")
        text.append(" · query ")
        text.append_text(server_text(repr(self.query_text) if self.query_text else "none"))
        if self.status:
            text.append(" · status ")
            text.append_text(server_text(self.status, style="bold"))
        if self.following:
            text.append("  ● following", style="bold green")
        else:
            text.append("  ○ paused (f follows)", style="dim")
        return text

    def _show_filters(self) -> None:
        self.query_one("#revision-logs-filters", Static).update(self._filters_text())

    def _start_over(self) -> None:
        self.lines = []
        self.problem = None
        self.query_one(Log).clear()
        self._show_filters()

    def _add(self, entries: list[LogEntry]) -> None:
        new = [clean_text(log_line(entry)) for entry in entries]
        self.lines.extend(new)
        self.query_one(Log).write_lines(new)

    def _say(self, text: Text) -> None:
        self.problem = text
        self.query_one(Log).write_line(text.plain)

    # -- reading ------------------------------------------------------------------------

    def action_reload(self) -> None:
        self._start_over()
        self._read()

    @work(exclusive=True, group="revision-logs", exit_on_error=False)
    async def _read(self) -> None:
        await self._read_status()
        if self.kind == "build" and self.status in TERMINAL_REVISION_STATUSES:
            self.following = False  # the build ended: its log will not grow
            self._show_filters()
        query = LogQuery(level=self.level, query=self.query_text or None, limit=NEWEST_LINES)
        try:
            async for entry in self.client.logs.tail(
                self.kind,
                self.deployment_id,
                self.revision_id,
                query,
                interval=self.interval,
                forever=self.following,
            ):
                self._add([entry])
        except NotFound:
            await self._read_older_endpoint()
        except ApiError as error:
            title, message = describe_error(error, f"read the {self.kind} log")
            self._say(server_text(f"{title}: {message} · r reads again", style="red"))
            self.following = False
            self._show_filters()
            return
        if not self.lines and self.problem is None:
            self._say(Text("(no lines)", style="dim"))

    async def _read_older_endpoint(self) -> None:
        if self.kind != "build" or self.level or self.query_text:
            self._say(Text(f"This control plane does not serve {self.kind} logs.", style="dim"))
            return
        try:
            logs = await self.client.logs.revision_log(self.deployment_id, self.revision_id)
        except NotFound:
            self._say(Text("This control plane does not serve revision logs.", style="dim"))
            return
        self.status = logs.status
        self._show_filters()
        new = [clean_text(line) for line in logs.lines]
        self.lines.extend(new)
        self.query_one(Log).write_lines(new)

    async def _read_status(self) -> None:
        try:
            revision = await self.client.revisions.get(self.deployment_id, self.revision_id)
        except ApiError:
            return  # the log itself says what is wrong
        if revision.status != self.status:
            self.status = revision.status
            self._show_filters()
            if self.kind == "build" and self.following and revision.is_terminal:
                # Its last lines were written before the status: one more poll reads them.
                self.set_timer(self.interval * 2, self._build_ended)

    def _build_ended(self) -> None:
        if self.kind == "build" and self.following:
            self.workers.cancel_group(self, "revision-logs")
            self.following = False
            self._show_filters()

    def _poll_status(self) -> None:
        if self.following and self.status not in TERMINAL_REVISION_STATUSES and self.is_current:
            self._refresh_status()

    @work(exclusive=True, group="revision-logs-status", exit_on_error=False)
    async def _refresh_status(self) -> None:
        await self._read_status()

    # -- keys ---------------------------------------------------------------------------

    def action_follow(self) -> None:
        if (
            not self.following
            and self.kind == "build"
            and self.status in TERMINAL_REVISION_STATUSES
        ):
            self.notify(
                f"The build ended ({self.status}): its log will not grow. "
                "t shows the deploy log, which does",
                markup=False,
            )
            return
        self.following = not self.following
        if self.following:
            self.action_reload()  # the newest lines again, then new ones
        else:
            self.workers.cancel_group(self, "revision-logs")
            self._show_filters()
        self.notify(
            "Following the log" if self.following else "Not following: f follows again",
            markup=False,
        )

    def action_switch_kind(self) -> None:
        self.kind = "deploy" if self.kind == "build" else "build"
        self.action_reload()

    def action_next_level(self) -> None:
        levels: list[str | None] = [None, *LOG_LEVELS]
        self.level = levels[(levels.index(self.level) + 1) % len(levels)]
        self.action_reload()

    def action_find(self) -> None:
        self.query_one(LogQueryInput).focus()

    @on(Input.Submitted, "#revision-logs-query")
    def _query_given(self, event: Input.Submitted) -> None:
        self.query_text = event.value.strip()
        self.query_one(Log).focus()
        self.action_reload()
