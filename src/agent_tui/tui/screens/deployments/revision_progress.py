"""Follow one revision through its statuses to `DEPLOYED` or the failure, with its logs.

The steps QUEUED → AWAITING_BUILD → BUILDING → AWAITING_DEPLOY → DEPLOYING → DEPLOYED are
listed with the current one highlighted and the time spent in each (as seen by polling:
a step shorter than the poll interval shows as passed, without a time). The revision's
log lines (`GET …/revisions/{id}/logs`) follow below, cleaned and rendered inertly; a
control plane without that endpoint (the public one answers 404) just has no log.

On `DEPLOYED` it shows the deployment's URL and `o` opens its assistants (as the current
context, `app.open_server_context`); on a failure, the reason from the logs. `r` follows
again once following stopped on an error (the network). The header names the deployment
(context > deployment > revision). `esc` goes back. Leaving stops the polling (the
workers belong to this screen) but never the deploy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Footer, Log, Static

from agent_tui.client import ApiError, ControlPlaneClient, NotFound
from agent_tui.client.agent_server import STUDIO_HEADERS
from agent_tui.client.error_text import describe_error
from agent_tui.client.models.control_plane import (
    FAILED_REVISION_STATUSES,
    REVISION_STEPS,
    TERMINAL_REVISION_STATUSES,
    Deployment,
)
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_random_id
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App

STEPS: tuple[str, ...] = REVISION_STEPS
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
# The step a failure status ended: the steps before it passed even when polling saw
# none of them (a fast build fails before the first poll).
FAILED_AT = {"BUILD_FAILED": "BUILDING", "DEPLOY_FAILED": "DEPLOYING"}
POLL_INTERVAL = 1.0  # the official CLI polls every 1 to 3 s; local deploys take seconds


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 60 else f"{int(value // 60)} min {int(value % 60)} s"


def render_steps(seen: Sequence[tuple[str, float]], now: float, spinner: str = "▶") -> Text:
    """The step list: ✓ passed (with its time), `spinner` current, · to come, ✗ failed.

    `seen` is each status seen, in order, with when it was first seen (monotonic)."""
    order = [status for status, _ in seen]
    last = order[-1] if order else None
    reached = max((STEPS.index(s) for s in order if s in STEPS), default=-1)
    ended_badly = last is not None and last in TERMINAL_REVISION_STATUSES and last != "DEPLOYED"
    if ended_badly and last in FAILED_AT:
        reached = max(reached, STEPS.index(FAILED_AT[last]))
    text = Text()
    if "CREATING" in order:  # cloud control planes start here
        text.append_text(_step_line("CREATING", seen, now, "✓", "green"))
    for index, step in enumerate(STEPS):
        if step == last and step == "DEPLOYED":
            line = _step_line(step, seen, now, "✓", "bold green")
        elif step == last:
            line = _step_line(step, seen, now, spinner, "bold reverse")
        elif index < reached or (index == reached and last not in STEPS and not ended_badly):
            line = _step_line(step, seen, now, "✓", "green")
        elif index == reached and ended_badly:
            line = _step_line(step, seen, now, "✗", "red")
        else:
            line = Text(f"·  {step}\n", style="dim")
        text.append_text(line)
    if last is not None and last not in STEPS and last != "CREATING":
        style = "bold red" if last in FAILED_REVISION_STATUSES else "bold yellow"
        mark = "✗" if last in TERMINAL_REVISION_STATUSES else spinner
        text.append(f"{mark}  {last}\n", style=style)
    text.rstrip()
    return text


def _step_line(
    step: str, seen: Sequence[tuple[str, float]], now: float, mark: str, style: str
) -> Text:
    times = [(i, at) for i, (status, at) in enumerate(seen) if status == step]
    line = Text(f"{mark}  {step}", style=style)
    if times:
        index, started = times[0]
        terminal = step in TERMINAL_REVISION_STATUSES
        ended = seen[index + 1][1] if index + 1 < len(seen) else (None if terminal else now)
        if ended is not None:
            line.append(f"  {_seconds(ended - started)}", style="dim")
    line.append("\n")
    return line


def failure_reason(lines: Sequence[str]) -> str:
    """The log line that says why a revision failed: the last "… failed: why", else the
    first "cannot …" (a build names the graph it could not import), else the last lines."""
    stated = [line for line in lines if "failed:" in line]
    if stated:
        return stated[-1]
    cannot = [line for line in lines if "cannot " in line]
    if cannot:
        return cannot[0]
    tail = [line for line in lines if line.strip()][-2:]
    return " · ".join(tail)


class RevisionProgressScreen(AgentScreen[None]):
    DEFAULT_CSS = """
    RevisionProgressScreen #progress-title { text-style: bold; padding: 0 1; }
    RevisionProgressScreen #progress-status { padding: 0 1; }
    RevisionProgressScreen #progress-steps { padding: 1 2; height: auto; }
    RevisionProgressScreen #progress-result { padding: 0 1; height: auto; }
    RevisionProgressScreen #progress-log-title { padding: 0 1; margin-top: 1; text-style: bold; }
    RevisionProgressScreen #progress-log { height: 1fr; border: round $primary 50%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_server", "Open assistants", id="revision_progress.open"),
        Binding("r", "follow", "Follow again", id="revision_progress.follow"),
        Binding("escape", "back", "Back", id="revision_progress.back"),
    ]

    def __init__(
        self,
        client: ControlPlaneClient,
        deployment_id: str,
        revision_id: str,
        *,
        interval: float = POLL_INTERVAL,
    ) -> None:
        super().__init__()
        self.client = client
        self.deployment_id = deployment_id
        self.revision_id = revision_id
        self.interval = interval
        self.seen: list[tuple[str, float]] = []  # each status and when it was first seen
        self.status: str | None = None
        self.deployment: Deployment | None = None  # read again once DEPLOYED (for its URL)
        self.deployment_name: str | None = None
        self.log_lines: list[str] = []
        self.logs_available = True
        self._frame = 0
        self._ticker: Timer | None = None
        self._following = False  # `r` (follow again) is for when following stopped

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_REVISION_STATUSES

    @property
    def url(self) -> str | None:
        return self.deployment.url if self.deployment is not None else None

    @property
    def breadcrumb_title(self) -> str:
        return f"revision {short_random_id(self.revision_id)}"

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        with Vertical():
            title = server_text(f"Deployment {self.deployment_id} · revision {self.revision_id}")
            yield Static(title, id="progress-title")
            yield Static("Asking for the revision…", id="progress-status")
            yield Static(id="progress-steps")
            yield Static(id="progress-result")
            yield Static("Logs", id="progress-log-title")
            yield Log(max_lines=10_000, id="progress-log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#progress-result", Static).display = False
        self._ticker = self.set_interval(0.1, self._tick)
        self.action_follow()

    # -- following ----------------------------------------------------------------------

    def action_follow(self) -> None:
        """(Re)start following: after a network failure, `r` picks it up again."""
        if self.finished:
            return
        self._set_following(True)
        self._follow()
        self._tail_logs()

    @work(exclusive=True, group="revision-follow", exit_on_error=False)
    async def _follow(self) -> None:
        await self._show_name()
        try:
            async for revision in self.client.wait_for_revision(
                self.deployment_id, self.revision_id, interval=self.interval
            ):
                self._saw(revision.status)
        except ApiError as error:
            title, body = describe_error(error, "follow the revision")
            self._set_status(server_text(f"{title} — {body} · r follows again", "red"))
            return
        finally:
            self._set_following(False)
        if self.status == "DEPLOYED":
            await self._read_deployment()
        elif not self.logs_available:
            self._show_failure()

    def _set_following(self, following: bool) -> None:
        self._following = following
        self.refresh_bindings()

    async def _show_name(self) -> None:
        """The title and the breadcrumb name the deployment (its URL waits for DEPLOYED:
        until then it is the previous revision's server)."""
        if self.deployment_name is not None:
            return
        try:
            self.deployment_name = (await self.client.deployments.get(self.deployment_id)).name
        except ApiError:
            return  # the title keeps the id; following reports the error if it persists
        title = server_text(f"Deployment {self.deployment_name} · revision {self.revision_id}")
        self.query_one("#progress-title", Static).update(title)
        self._select_deployment()

    def on_screen_resume(self) -> None:
        self._select_deployment()

    def _select_deployment(self) -> None:
        """As the deployment's detail does: the breadcrumb says whose revision this is
        (the screen below sets its own again when this one closes)."""
        if self.deployment_name is not None:
            self.agent_app.selection.update(deployment=self.deployment_name)

    def _saw(self, status: str) -> None:
        self.status = status
        self.seen.append((status, time.monotonic()))
        self._tick()
        if self.finished:
            self.refresh_bindings()  # `r` (follow again) is gone

    async def _read_deployment(self) -> None:
        try:
            self.deployment = await self.client.deployments.get(self.deployment_id)
        except ApiError as error:
            self.report_error(error, doing="read the deployment's URL")
            return
        result = Text("Deployed", style="bold green")
        if self.url:
            result.append(" at ")
            result.append_text(server_text(self.url, "underline"))
            result.append("  · o opens its assistants · esc back")
        else:
            result.append(" (the control plane gave no URL yet) · esc back")
        self._show_result(result)
        self.refresh_bindings()

    @work(exclusive=True, group="revision-logs", exit_on_error=False)
    async def _tail_logs(self) -> None:
        while self.logs_available:
            last_round = self.finished  # one more read after the end, for the last lines
            try:
                logs = await self.client.logs.revision_log(self.deployment_id, self.revision_id)
            except NotFound:
                self.logs_available = False
                self.query_one("#progress-log-title", Static).update(
                    "Logs: this control plane does not serve revision logs"
                )
                return
            except ApiError:
                if last_round:
                    return
            else:
                self._add_log_lines(logs.lines)
            if last_round:
                break
            if not self._following and not self.finished:
                return  # following failed: `r` starts both again
            await asyncio.sleep(self.interval)
        self._show_failure()

    def _add_log_lines(self, lines: Sequence[str]) -> None:
        log = self.query_one("#progress-log", Log)
        if len(lines) < len(self.log_lines):  # the server rewrote its log: start over
            log.clear()
            self.log_lines = []
        new = [clean_text(line) for line in lines[len(self.log_lines) :]]
        if new:
            self.log_lines.extend(new)
            log.write_lines(new)

    def _show_failure(self) -> None:
        if not self.finished or self.status == "DEPLOYED":
            return
        result = Text(f"{self.status}", style="bold red")
        reason = failure_reason(self.log_lines)
        if reason:
            result.append(": ")
            result.append_text(server_text(reason))
        result.append("  · esc back")
        self._show_result(result)

    # -- display ------------------------------------------------------------------------

    def _tick(self) -> None:
        now = time.monotonic()
        self._frame = (self._frame + 1) % len(SPINNER)
        spinner = SPINNER[self._frame]
        if self.finished and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.query_one("#progress-steps", Static).update(render_steps(self.seen, now, spinner))
        if self.status is None:
            return
        first = self.seen[0][1]
        if self.finished:
            ended = self.seen[-1][1]
            ok = self.status == "DEPLOYED"
            line = Text("✓ " if ok else "✗ ", style="bold green" if ok else "bold red")
            line.append(f"{self.status} after {_seconds(ended - first)}")
        else:
            line = Text(f"{spinner} {self.status} · {_seconds(now - first)}")
        self._set_status(line)

    def _set_status(self, text: Text) -> None:
        self.query_one("#progress-status", Static).update(text)

    def _show_result(self, text: Text) -> None:
        result = self.query_one("#progress-result", Static)
        result.update(text)
        result.display = True

    # -- keys ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_server":
            return self.url is not None
        if action == "follow":
            return not self.finished and not self._following
        return True

    def action_open_server(self) -> None:
        deployment = self.deployment
        if deployment is None or deployment.url is None:
            return
        api_key, tenant = self._server_credentials()
        self.agent_app.open_server_context(
            deployment.name,
            deployment.url,
            api_key,
            workspace_id=tenant,
            deployment=deployment.name,
            # Past a project's own auth, as Studio is let in.
            headers=tuple(STUDIO_HEADERS.items()),
        )

    def _server_credentials(self) -> tuple[str | None, str | None]:
        """LangSmith's agent servers take the control plane's key; the local control
        plane's servers need none, and its key must not travel to them."""
        local = self.agent_app.local_control_plane
        if (
            local is not None
            and local.port is not None
            and self.client.transport.base_url == local.url.rstrip("/")
        ):
            return None, None
        credentials = self.client.transport.credentials
        return credentials.api_key, credentials.tenant_id

    def action_back(self) -> None:
        if self.app.screen is self and len(self.app.screen_stack) > 1:
            self.dismiss()


def follow_revision(app: App[Any], client: ControlPlaneClient, deployment: Deployment) -> None:
    """Open the progress view on the deployment's latest revision (if there is one)."""
    if deployment.latest_revision_id is None:
        return
    app.push_screen(RevisionProgressScreen(client, deployment.id, deployment.latest_revision_id))
