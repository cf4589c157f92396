"""Shared by the Deployments screen tests: one real local control plane per test run.

`shared_plane()` starts a `LocalControlPlane` on a temporary data folder the first
time a test asks (module fixtures of both test files share it, so the deploys happen
once) and really deploys `tests/graphs/langgraph.json` as `alpha`, with a secret whose
value must never show on screen. It stops, with the agent servers it deployed, when
pytest ends. Deploys take a few seconds each: tests create as few as they can.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.deployments.secrets import mask_secrets
from agent_tui.local.control_plane import LocalControlPlane, build_children, deployer
from agent_tui.settings.contexts import Context
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.paths import GRAPHS_CONFIG
from tests.support.waiting import WaitFor

SIZE = (150, 40)
SECRET_NAME = "ALPHA_TOKEN"
SECRET_VALUE = "alpha-secret-value-9f3c"  # asserted absent from every screen
DEPLOY_TIMEOUT = 60.0
TERMINAL = {"DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED"}


@dataclass
class SharedPlane:
    plane: LocalControlPlane = field(repr=False)
    # The deployment once deployed, its secret values masked (a failing test prints it).
    alpha: dict[str, Any] = field(repr=False)

    @property
    def url(self) -> str:
        return self.plane.url

    @property
    def api_key(self) -> str:
        return self.plane.api_key

    def http(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"X-Api-Key": self.api_key}, trust_env=False, timeout=30
        )


_shared: list[SharedPlane] = []


def create_deployment(
    http: httpx.Client, name: str, config_path: str, secrets: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    response = http.post(
        "/v2/deployments",
        json={
            "name": name,
            "source": "internal_source",
            "source_config": {},
            "source_revision_config": {"langgraph_config_path": config_path},
            "secrets": secrets or [],
        },
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_terminal(http: httpx.Client, deployment_id: str, revision_id: str) -> str:
    """Poll a revision until a terminal status (the control plane deploys in the
    background); the status it ended with."""
    deadline = time.monotonic() + DEPLOY_TIMEOUT
    while True:
        path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}"
        status = str(http.get(path).json()["status"])
        if status in TERMINAL:
            return status
        assert time.monotonic() < deadline, f"revision still {status}"
        time.sleep(0.2)


def hold_builds(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Builds wait (up to 60 s) until the returned event is set: a test sees a revision
    still building however fast or slow the machine is."""
    release = threading.Event()
    build = build_children.build_environment

    async def held_build(*args: Any, **kwargs: Any) -> str:
        await asyncio.to_thread(release.wait, 60)
        return await build(*args, **kwargs)

    monkeypatch.setattr(deployer, "build_environment", held_build)
    return release


def shared_plane(request: pytest.FixtureRequest) -> SharedPlane:
    if _shared:
        return _shared[0]
    data_dir = Path(tempfile.mkdtemp(prefix="agent-tui-cp-ui-"))
    plane = LocalControlPlane(data_dir)
    plane.start()
    # Cleanups run last first: stop (with its agent servers), then remove its folder.
    request.config.add_cleanup(lambda: shutil.rmtree(data_dir, ignore_errors=True))
    request.config.add_cleanup(plane.stop)
    with SharedPlane(plane, {}).http() as http:
        alpha = create_deployment(
            http, "alpha", str(GRAPHS_CONFIG), [{"name": SECRET_NAME, "value": SECRET_VALUE}]
        )
        status = wait_terminal(http, alpha["id"], alpha["latest_revision_id"])
        assert status == "DEPLOYED"
        alpha = mask_secrets(http.get(f"/v2/deployments/{alpha['id']}").json())
    _shared.append(SharedPlane(plane, alpha))
    return _shared[0]


def control_plane_app(
    agent_server_url: str, control_plane_url: str | None, *, readonly: bool = False
) -> AgentTuiApp:
    """The app on the session's agent server, with this control plane (None: the app
    starts the local one)."""
    context = Context(
        "ui-tests",
        RemoteServer(agent_server_url),
        key_source="none",
        control_plane_url=control_plane_url,
    )
    return AgentTuiApp(context, readonly=readonly)


def names_shown(screen: DeploymentsScreen) -> list[str]:
    return [row.deployment.name for row in screen.table.visible_items]


def cell_texts(screen: Any) -> list[list[str]]:
    table = screen.table
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


def heading(screen: Any) -> str:
    return str(screen.query_one("#resource-heading", Static).render())


@pytest.fixture
def keyed_plane(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> SharedPlane:
    """The shared plane, its key in the environment (where the app finds it)."""
    shared = shared_plane(request)
    monkeypatch.setenv("AGENT_TUI_CONTROL_PLANE_KEY", shared.api_key)
    return shared


async def open_deployments(
    app: AgentTuiApp, pilot: Pilot[None], wait_for: WaitFor, *, rows: bool = True
) -> DeploymentsScreen:
    """From home: `d`, the deployments list (once it has rows, unless ``rows`` is False)."""
    await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
    await pilot.press("d")
    await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="deployments")
    screen = app.screen
    assert isinstance(screen, DeploymentsScreen)
    if rows:
        await wait_for(pilot, lambda: screen.table.row_count > 0, what="deployment rows")
    return screen


async def select_alpha(
    app: AgentTuiApp, pilot: Pilot[None], plane: SharedPlane, wait_for: WaitFor
) -> DeploymentsScreen:
    """The deployments list now shown, with `alpha`'s row selected once it is listed."""
    await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="list")
    listing = app.screen
    assert isinstance(listing, DeploymentsScreen)
    await wait_for(pilot, lambda: listing.table.get_item(plane.alpha["id"]) is not None)
    listing.table.move_to(plane.alpha["id"])
    return listing


async def open_alpha(
    app: AgentTuiApp, pilot: Pilot[None], plane: SharedPlane, wait_for: WaitFor
) -> DeploymentDetailScreen:
    """From home: `d`, then `alpha`'s detail once its revisions are listed."""
    await open_deployments(app, pilot, wait_for, rows=False)
    await select_alpha(app, pilot, plane, wait_for)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, DeploymentDetailScreen), what="detail")
    detail = app.screen
    assert isinstance(detail, DeploymentDetailScreen)
    await wait_for(pilot, lambda: detail.table.row_count > 0, what="revisions")
    return detail
