"""One deployment: its header and its revisions, newest first, refreshed while they change.

Keys beyond the shared ones (`resource_screen.py`): `enter` or `l` the revision's build
and deploy log, with filters and follow (`revision_logs.py`; `l` is in the footer: the
table's own enter hides the shared "Open") · `p`/`R` redeploy the selected revision: on
an earlier one, a rollback (the confirmation names the active revision and the one
deployed again; a new revision with its config and secrets), then follow it · `m` mark a revision · `d` diff the selected revision against the marked one,
or against its predecessor · `o` open the deployment's agent server as the current
context, landing on its assistants · `y` the revision's JSON · `c` copy its id.

The role column says "active" for the deployed revision the deployment serves, and
"replaced" for older revisions that were deployed once (not a server status: docs/server-quirks.md).
While any listed revision is not terminal, or the deployment is not READY (or UNUSED), the
screen reloads every `LIVE_INTERVAL` seconds (the official CLI polls every 1 to 3 s).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType

from agent_tui.client.agent_server import STUDIO_HEADERS
from agent_tui.client.models.control_plane import (
    STEADY_DEPLOYMENT_STATUSES,
    Deployment,
    Revision,
)
from agent_tui.deployments.control_plane_access import control_plane_access
from agent_tui.deployments.revision_diff import diff_revisions, predecessor
from agent_tui.deployments.secrets import mask_secrets
from agent_tui.text.short_ids import short_random_id
from agent_tui.text.time_text import utc_seconds
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import FAILED, ResourceScreen
from agent_tui.tui.screens.deployments.revision_diff import RevisionDiffScreen
from agent_tui.tui.screens.deployments.revision_logs import RevisionLogsScreen
from agent_tui.tui.screens.deployments.revision_progress import follow_revision
from agent_tui.tui.widgets.resource_table import Column, status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from agent_tui.client import ControlPlaneClient


def revision_role(revision: Revision, deployment: Deployment) -> str:
    if revision.id == deployment.active_revision_id:
        return "active"
    if revision.status == "DEPLOYED":
        return "replaced"
    return ""


class DeploymentDetailScreen(ResourceScreen[Revision]):
    RESOURCE = "revision"
    RESOURCES = "revisions"
    PAGE_SIZE = 50
    LIVE_INTERVAL: ClassVar[float] = 1.5
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "logs", "Log", id="deployment.logs"),
        Binding("p,R", "redeploy", "Redeploy", id="deployment.redeploy"),
        Binding("m", "mark", "Mark", id="deployment.mark"),
        Binding("d", "diff", "Diff", id="deployment.diff"),
        Binding("o", "open_server", "Open server", id="deployment.open_server"),
    ]

    def __init__(self, client: ControlPlaneClient, deployment: Deployment) -> None:
        super().__init__()
        self.client = client
        self.deployment = deployment
        self.marked: str | None = None  # the revision `d` compares against

    # -- what is listed ---------------------------------------------------------------

    @property
    def breadcrumb_title(self) -> str:
        return "revisions"

    def columns(self) -> Sequence[Column[Revision]]:
        return [
            Column("id", "ID", lambda r: short_random_id(r.id), width=8),
            Column("status", "Status", lambda r: status_text(r.status), width=15),
            Column("role", "", lambda r: self._role_text(r), width=8),
            Column("created", "Created (UTC)", lambda r: utc_seconds(r.created_at), width=19),
            Column("updated", "Updated (UTC)", lambda r: utc_seconds(r.updated_at), width=19),
            Column(
                "config",
                "Config",
                lambda r: (
                    r.source_revision_config.langgraph_config_path
                    or r.source_revision_config.image_uri
                    or r.source_revision_config.repo_ref
                    or ""
                ),
            ),
        ]

    def _role_text(self, revision: Revision) -> Text:
        role = revision_role(revision, self.deployment)
        mark = " ◆" if revision.id == self.marked else ""
        return server_text(role + mark, style="bold green" if role == "active" else "dim")

    def item_id(self, item: Revision) -> str:
        return item.id

    def raw_json(self, item: Revision) -> Any:
        return mask_secrets(item.raw())

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Revision]:
        if offset == 0:  # a reload: the header (status, URL, active revision) too
            self.deployment = await self.client.deployments.get(self.deployment.id)
        page = await self.client.revisions.list(self.deployment.id, limit=limit, offset=offset)
        return page.resources

    def heading(self) -> Text | None:
        d = self.deployment
        text = server_text(d.name, style="bold")
        text.append("  ")
        text.append_text(status_text(d.status))
        text.append_text(server_text(f"  {d.url or 'no URL yet'}"))
        text.append_text(server_text(f"  active {short_random_id(d.active_revision_id)}"))
        if self.marked:
            text.append_text(
                server_text(f"  marked {short_random_id(self.marked)}", style="italic")
            )
        text.append("\n")
        return text

    # -- live -------------------------------------------------------------------------

    def on_mount(self) -> None:
        super().on_mount()
        self._select_deployment()
        self.set_interval(self.LIVE_INTERVAL, self._refresh_while_changing)

    def on_screen_resume(self) -> None:
        self._select_deployment()

    def _select_deployment(self) -> None:
        self.agent_app.selection.update(deployment=self.deployment.name)

    def _refresh_while_changing(self) -> None:
        # The deployment too: its new revision is deployed a moment before the new server
        # answers and the deployment is READY again (the heading stayed as it was).
        settling = self.deployment.status not in STEADY_DEPLOYMENT_STATUSES
        if self.is_current and (settling or any(not r.is_terminal for r in self.table.items)):
            self.reload()

    # -- verbs ------------------------------------------------------------------------

    def open_item(self, item: Revision) -> None:
        self.app.push_screen(RevisionLogsScreen(self.client, self.deployment.id, item.id))

    def action_logs(self) -> None:
        item = self._selected()
        if item is not None:
            self.open_item(item)

    def action_mark(self) -> None:
        item = self._selected()
        if item is None:
            return
        self.marked = None if self.marked == item.id else item.id
        self.table.update_item(item)  # its role cell shows the mark
        self.update_heading()

    def action_diff(self) -> None:
        item = self._selected()
        if item is None:
            return
        other = self.table.get_item(self.marked) if self.marked else None
        if other is not None and other.id != item.id:
            heading = "The marked revision against the selected one"
        else:
            other = predecessor(self.table.items, item.id)
            heading = "The revision before it against the selected one"
        if other is None:
            self.notify(
                "The first revision: nothing older to compare (mark one with m)", markup=False
            )
            return

        diff = diff_revisions(other, item, self.deployment)
        title = f"{self.deployment.name}: {short_random_id(diff.old.id)} → {short_random_id(diff.new.id)}"
        self.app.push_screen(RevisionDiffScreen(diff, title=title, heading=heading))

    def action_redeploy(self) -> None:
        item = self._selected()
        if item is None or self.refuse_if_readonly("redeploy a revision"):
            return
        if item.id == self.deployment.active_revision_id:
            self.notify("This revision is the active one already", markup=False)
            return
        active = self.deployment.active_revision_id
        older = active is not None and self._is_older(item, active)
        if active is None:
            question = (
                f"Deploy revision {short_random_id(item.id)} of {self.deployment.name} again?"
            )
        else:
            verb = "Roll back" if older else "Switch"
            question = (
                f"{verb} {self.deployment.name} from revision {short_random_id(active)} "
                f"(active) to revision {short_random_id(item.id)}?"
            )
        question += (
            f"\nThis makes a new revision with the config and secrets of "
            f"{short_random_id(item.id)}, built and deployed as any new one."
        )
        title = "Roll back" if older else "Redeploy revision"

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._redeploy(item)

        self.app.push_screen(
            ConfirmScreen(question, title=title, yes="Roll back" if older else "Redeploy"),
            answered,
        )

    def _is_older(self, item: Revision, active_id: str) -> bool:
        """Whether ``item`` came before the active revision (the list is newest first)."""
        ids = [r.id for r in self.table.items]
        return item.id in ids and active_id in ids and ids.index(item.id) > ids.index(active_id)

    @work(group="deployment-redeploy", exit_on_error=False)
    async def _redeploy(self, item: Revision) -> None:
        result = await self.attempt(
            self.client.revisions.redeploy(self.deployment.id, item.id),
            doing=f"redeploy revision {item.id}",
        )
        if result is FAILED:
            return
        assert isinstance(result, Deployment)
        self.deployment = result
        new = short_random_id(result.latest_revision_id)
        self.notify(
            f"Deploying revision {short_random_id(item.id)} again as revision {new}", markup=False
        )
        self.reload()
        follow_revision(self.app, self.client, result)

    def action_open_server(self) -> None:
        url = self.deployment.url
        if not url:
            self.notify(
                f"{self.deployment.name} has no agent server URL yet (not deployed)",
                severity="warning",
                markup=False,
            )
            return
        context = self.agent_app.context
        access = control_plane_access(context) if context is not None else None
        # LangSmith deployments take the control plane's key; the local control plane's
        # agent servers need none (its key must not travel to them). Both let agent-tui
        # past a project's own auth as they let Studio (`STUDIO_HEADERS`).
        local = access is None or access.is_local
        self.agent_app.open_server_context(
            self.deployment.name,
            url,
            None if local or access is None else access.api_key,
            workspace_id=None if local or access is None else access.tenant_id,
            deployment=self.deployment.name,
            headers=tuple(STUDIO_HEADERS.items()),
        )

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()

        yield PaletteCommand(
            "Redeploy revision / roll back",
            "Deploy the selected revision again (an earlier one: a rollback)",
            self.action_redeploy,
        )
        yield PaletteCommand(
            "Diff revisions", "Against the marked revision, or the one before", self.action_diff
        )
        yield PaletteCommand(
            "Open the deployment's agent server",
            "Connect to it and list its assistants",
            self.action_open_server,
        )
