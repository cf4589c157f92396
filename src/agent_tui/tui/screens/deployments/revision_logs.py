"""A revision's build and deploy log (`GET …/revisions/{id}/logs`), in a modal.

The lines are server text: cleaned and rendered inertly. A control plane without the
logs endpoint (the public one) answers 404; the modal says so instead of failing.
`r` reads them again (a revision still building keeps writing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.client.error_text import describe_error
from agent_tui.client.errors import ApiError, NotFound
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient


class RevisionLogsScreen(ReportsWorkerFailures, ModalScreen[None]):
    DEFAULT_CSS = """
    RevisionLogsScreen { align: center middle; }
    RevisionLogsScreen > Vertical {
        width: 90%; height: 85%; border: thick $primary; background: $surface;
    }
    RevisionLogsScreen #revision-logs-title {
        text-style: bold; padding: 0 1; background: $primary 30%;
    }
    RevisionLogsScreen VerticalScroll { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,q", "dismiss", "Close", id="revision_logs.close"),
        Binding("r", "reload", "Reload", id="revision_logs.reload"),
    ]

    def __init__(self, client: ControlPlaneClient, deployment_id: str, revision_id: str) -> None:
        super().__init__()
        self.client = client
        self.deployment_id = deployment_id
        self.revision_id = revision_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                server_text(f"Log of revision {self.revision_id}"), id="revision-logs-title"
            )
            with VerticalScroll(can_focus=True):
                yield Static(Text("loading…", style="dim"), id="revision-logs")
        yield Footer()

    @property
    def text(self) -> str:
        return str(self.query_one("#revision-logs", Static).render())

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
        self.action_reload()

    def action_reload(self) -> None:
        self._load()

    @work(exclusive=True, group="revision-logs", exit_on_error=False)
    async def _load(self) -> None:
        body = self.query_one("#revision-logs", Static)
        try:
            logs = await self.client.logs.revision_log(self.deployment_id, self.revision_id)
        except NotFound:
            body.update(Text("This control plane does not serve revision logs.", style="dim"))
            return
        except ApiError as error:
            title, message = describe_error(error, "read the log")
            body.update(server_text(f"{title}\n{message}", style="red"))
            return
        text = server_text(f"status {logs.status or '—'}", style="bold")
        for line in logs.lines or ["(no lines yet)"]:
            text.append("\n")
            text.append_text(server_text(line))
        body.update(text)
        self.query_one(VerticalScroll).scroll_end(animate=False)
