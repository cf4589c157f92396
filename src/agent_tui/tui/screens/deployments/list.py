"""The Deployments screen: the control plane's deployments, with their latest revision.

The control plane is the context's (`app.get_control_plane()`), or the local one the
app starts when the context names none; the heading says which. Keys beyond the shared
verbs (`resource_screen.py`): `enter` the deployment's revisions, `n` new deployment,
`e` patch it, "Deploy this folder…" in the palette packs ./langgraph.json's folder and
deploys it as `agent-tui deploy` does, `ctrl+d` delete (after a confirmation that says its agent server
stops, and when this app is connected to that server). After a create or a patch the
revision progress view follows the new revision. `/` filters what is loaded; enter in
the filter also asks the server for the names containing the text (`name_contains`),
which finds deployments not loaded yet. While a deployment or its latest revision is
still changing, the list refreshes itself every `AUTO_REFRESH` seconds.

`y` shows the deployment's JSON with every secret value replaced by a mask: the local
control plane returns secret values, and they must never reach the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work

from agent_tui.client.errors import ApiError
from agent_tui.client.models.control_plane import Deployment, Revision
from agent_tui.deployments.secrets import mask_secrets
from agent_tui.deployments.spec import suggested_name
from agent_tui.text.short_ids import short_random_id
from agent_tui.text.time_text import utc_seconds
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.revision_progress import follow_revision
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.resource_table import NAME_WIDTH, Column, status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from agent_tui.client import ControlPlaneClient

# A deployment status that changes on its own whatever its revisions do. (AWAITING_DATABASE
# only with an active revision: a deployment whose only revision failed stays in it.)
CHANGING_DEPLOYMENT_STATUSES = frozenset({"AWAITING_DELETE"})


@dataclass(frozen=True, slots=True)
class DeploymentRow:
    """A deployment and its latest revision (None: none, or it could not be read)."""

    deployment: Deployment
    latest: Revision | None = None

    @property
    def changing(self) -> bool:
        if self.deployment.status in CHANGING_DEPLOYMENT_STATUSES:
            return True
        if self.deployment.status == "AWAITING_DATABASE" and self.deployment.active_revision_id:
            return True  # a served deployment coming back (its server restarting)
        return self.latest is not None and not self.latest.is_terminal

    @property
    def state(self) -> str:
        """The deployment's status, unless it never served and its latest revision
        failed: then that failure. (The control plane leaves such a deployment
        AWAITING_DATABASE, which reads as if something were still coming.)"""
        status = self.deployment.status
        latest = self.latest
        if (
            status == "AWAITING_DATABASE"
            and not self.deployment.active_revision_id
            and latest is not None
            and latest.failed
        ):
            return latest.status
        return status

    def raw(self) -> Any:
        return mask_secrets(self.deployment.raw())


def deployment_columns() -> list[Column[DeploymentRow]]:
    return [
        Column("name", "Name", lambda r: r.deployment.name, max_width=NAME_WIDTH),
        Column("status", "Status", lambda r: status_text(r.state), width=17),
        Column(
            "latest",
            "Latest revision",
            lambda r: status_text(r.latest.status if r.latest else None),
            width=16,
        ),
        Column(
            "active", "Active", lambda r: short_random_id(r.deployment.active_revision_id), width=8
        ),
        Column("url", "URL", lambda r: r.deployment.url or "—"),
        Column(
            "updated", "Updated (UTC)", lambda r: utc_seconds(r.deployment.updated_at), width=19
        ),
    ]


def deletion_consequences(app: App[Any], row: DeploymentRow) -> str:
    url = row.deployment.url
    if not url:
        return "This cannot be undone."
    client = agent_app(app).client
    current = str(client.base_url) if client is not None else ""
    said = f"Its agent server stops ({url}). This cannot be undone."
    if current.rstrip("/") == url.rstrip("/"):
        said += "\nagent-tui is connected to that server now: the connection will drop."
    return said


class DeploymentsScreen(ResourceScreen[DeploymentRow]):
    RESOURCE = "deployment"
    RESOURCES = "deployments"
    EMPTY_HINT = (
        "none yet: n deploys a langgraph.json (the local control plane runs it on this machine)"
    )
    PAGE_SIZE = 50
    VERBS = frozenset({"new", "edit", "delete"})
    AUTO_REFRESH: ClassVar[float] = 5.0  # seconds, while anything listed is changing

    def __init__(
        self, client: ControlPlaneClient | None = None, *, description: str | None = None
    ) -> None:
        """`client`: None to use the app's (`get_control_plane`), on first load."""
        super().__init__()
        self.client = client
        self.description = description
        self.name_contains = ""  # the server-side name filter (enter in the filter box)
        self.cwd = Path.cwd()  # the folder "Deploy this folder" packs
        self._shown_once = False

    # -- what is listed ---------------------------------------------------------------

    def columns(self) -> Sequence[Column[DeploymentRow]]:
        return deployment_columns()

    def item_id(self, item: DeploymentRow) -> str:
        return item.deployment.id

    def describe(self, item: DeploymentRow) -> str:
        return f"deployment {item.deployment.name} ({item.deployment.id})"

    def raw_json(self, item: DeploymentRow) -> Any:
        return item.raw()

    async def control_plane(self) -> ControlPlaneClient:
        if self.client is None:
            self.client = await self.agent_app.get_control_plane()
        return self.client

    async def fetch_page(self, offset: int, limit: int) -> Sequence[DeploymentRow]:
        client = await self.control_plane()
        page = await client.deployments.list(
            name_contains=self.name_contains or None, limit=limit, offset=offset
        )
        latest = await asyncio.gather(*(self._latest(client, d) for d in page.resources))
        return [DeploymentRow(d, r) for d, r in zip(page.resources, latest, strict=True)]

    @staticmethod
    async def _latest(client: ControlPlaneClient, deployment: Deployment) -> Revision | None:
        if deployment.latest_revision_id is None:
            return None
        try:
            return await client.revisions.get(deployment.id, deployment.latest_revision_id)
        except ApiError:
            return None  # the row still shows; its revision column says "—"

    def heading(self) -> Text | None:
        where = self.description or self.agent_app.control_plane_description
        if not where and self.client is not None:
            where = f"control plane · {self.client.base_url}"
        text = server_text(where or "control plane: connecting…", style="bold")
        if self.name_contains:
            text.append_text(server_text(f" · names containing {self.name_contains!r}"))
        return text

    # -- live -------------------------------------------------------------------------

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(self.AUTO_REFRESH, self._refresh_while_changing)

    def _refresh_while_changing(self) -> None:
        if self.is_current and any(row.changing for row in self.table.items):
            self.reload()

    def on_screen_resume(self) -> None:
        self.agent_app.selection.update(deployment=None)
        if self._shown_once:
            self.reload()  # back from a detail, a form or a progress view
        self._shown_once = True

    # -- verbs ------------------------------------------------------------------------

    def open_item(self, item: DeploymentRow) -> None:
        if self.client is None:
            return

        self.app.push_screen(DeploymentDetailScreen(self.client, item.deployment))

    def new_item(self) -> None:
        self._open_form(None)

    def edit_item(self, item: DeploymentRow) -> None:
        self._open_form(item.deployment)

    def _open_form(self, deployment: Deployment | None) -> None:
        client = self.client
        if client is None:
            self.notify("Still connecting to the control plane", markup=False)
            return

        def done(result: Deployment | None) -> None:
            if result is None:
                return
            self.reload()
            if deployment is None:
                self.notify(f"Created deployment {result.name}", markup=False)
            elif result.latest_revision_id == deployment.latest_revision_id:
                # Only what needs no build changed (the spec: secrets and
                # source_revision_config make a revision): nothing to follow.
                self.notify(f"Updated deployment {result.name} (no new revision)", markup=False)
                return
            else:
                self.notify(f"Updated deployment {result.name}: a new revision", markup=False)
            follow_revision(self.app, client, result)

        screen = (
            DeploymentFormScreen(client)
            if deployment is None
            else DeploymentFormScreen(client, deployment=deployment)
        )
        self.app.push_screen(screen, done)

    def action_delete(self) -> None:
        """The shared confirmation, saying also what else goes: the deployment's agent
        server, which may be the one this app is connected to."""
        item = self._selected()
        if item is None or self.refuse_if_readonly(f"delete {self.a_resource}"):
            return
        question = f"Delete {self.describe(item)}?\n{deletion_consequences(self.app, item)}"

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._delete(item)

        self.app.push_screen(ConfirmScreen(question, title="Delete deployment"), answered)

    async def delete_item(self, item: DeploymentRow) -> None:
        await (await self.control_plane()).deployments.delete(item.deployment.id)

    @on(Input.Submitted, "#resource-filter")
    def _ask_server_for_names(self, event: Input.Submitted) -> None:
        # The table filters what is loaded (the shared handler); the server finds the
        # rest. Both run for the same enter.
        wanted = event.value.strip()
        if wanted != self.name_contains:
            self.name_contains = wanted
            self.reload()

    def action_back(self) -> None:
        box = self.query_one("#resource-filter", Input)
        closing_filter = box.has_class("-shown")
        super().action_back()
        if closing_filter and self.name_contains:
            self.name_contains = ""
            self.reload()

    def action_deploy_folder(self) -> None:
        """Deploy ./langgraph.json's folder as `agent-tui deploy` does (after a yes)."""
        client = self.client
        if self.refuse_if_readonly("deploy this folder"):
            return
        if client is None:
            self.notify("Still connecting to the control plane", markup=False)
            return
        config = self.cwd / "langgraph.json"
        if not config.is_file():
            self.notify(
                f"No langgraph.json in {self.cwd}: start agent-tui in the project's folder",
                severity="error",
                markup=False,
            )
            return
        name = suggested_name(config)
        from agent_tui.deployments.project_sources import outside_folder
        from agent_tui.deployments.source_archive import ArchiveError

        try:
            also = outside_folder(config)
        except ArchiveError as error:
            self.notify(str(error), title="Not deployed", severity="error", markup=False)
            return
        question = f"Deploy {self.cwd} as {name}?"
        if also:
            question += f"\nWith what its langgraph.json names beside it: {', '.join(also)}."
        question += (
            "\nThe files are packed as their .gitignore says (never .venv or .git) and "
            f"uploaded; if {name} exists, this is a new revision of it."
        )

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._deploy_folder(client, config, name)

        self.app.push_screen(ConfirmScreen(question, title="Deploy this folder"), answered)

    @work(exclusive=True, group="deploy-folder", exit_on_error=False)
    async def _deploy_folder(self, client: ControlPlaneClient, config: Path, name: str) -> None:
        from agent_tui.client.error_text import describe_error
        from agent_tui.deployments.folder_deploy import SeveralNamed, deploy_folder
        from agent_tui.deployments.source_archive import ArchiveError

        self.notify(f"Packing and uploading {config.parent.name}…", markup=False)
        try:
            done = await deploy_folder(client, config, name)
        except (ArchiveError, SeveralNamed, OSError) as error:
            self.notify(str(error), title="Not deployed", severity="error", markup=False)
            return
        except ApiError as error:
            title, message = describe_error(error, "deploy this folder")
            self.notify(message, title=title, severity="error", markup=False)
            return
        self.reload()
        follow_revision(self.app, client, done.deployment)

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()

        yield PaletteCommand(
            "Deploy this folder…",
            "Pack ./langgraph.json's folder and deploy it (a new revision of its deployment)",
            self.action_deploy_folder,
        )

        yield PaletteCommand(
            "Edit deployment…", "Patch the selected deployment (a new revision)", self.action_edit
        )


# -- route (tui/routes.py) --------------------------------------------------------


def deployments_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """`:deployments` (alias `:deploy`); an argument filters names on the server."""
    screen = DeploymentsScreen()
    if argument:
        screen.name_contains = argument.strip()
    return screen
