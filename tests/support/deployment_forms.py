"""Pilot harness for the deployment form, the revision progress and the OAuth providers,
against a real `LocalControlPlane` that really deploys `tests/graphs/langgraph.json`.

`FormsApp` plays the part of the app: it hands out the control plane client
(`get_control_plane`), opens the form the way the deployments table does (then the
progress of the revision the form started), and records `open_server_context` calls
instead of switching contexts (the switch itself is the app's, tested with it).
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from agent_tui.client import AgentServerClient, ControlPlaneClient, RetryPolicy
from agent_tui.client.models.control_plane import Deployment
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen
from agent_tui.tui.shell import ShellApp
from tests.support.paths import GRAPHS_CONFIG
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

SIZE = (120, 50)
POLL = 0.2  # the progress screen's poll interval in tests


class FormsApp(ShellApp):
    def __init__(
        self,
        client: ControlPlaneClient,
        plane: LocalControlPlane | None = None,
        *,
        readonly: bool = False,
    ) -> None:
        super().__init__()
        self.control_plane = client
        # `open_resource` opens routes only once connected to an agent server; these
        # screens never use it, so a client to nowhere stands in for the connection.
        self.client = AgentServerClient("http://127.0.0.1:9", retry=RetryPolicy(attempts=1))
        self.plane = plane
        self.readonly = readonly
        self.readonly_reason = "the context 'prod' is read-only"
        self.results: list[Deployment | None] = []
        self.opened: list[dict[str, Any]] = []

    @property
    def local_control_plane(self) -> LocalControlPlane | None:
        return self.plane

    async def get_control_plane(self) -> ControlPlaneClient:
        return self.control_plane

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
        self.opened.append(
            {
                "name": name,
                "url": url,
                "api_key": api_key,
                "deployment": deployment,
                "then": then,
                "headers": dict(headers),
            }
        )

    def open_form(self, deployment: Deployment | None = None, *, cwd: Path | None = None) -> None:
        """As the deployments table does: the form, then the progress of its revision."""

        def done(result: Deployment | None) -> None:
            self.results.append(result)
            if result is not None and result.latest_revision_id:
                self.push_screen(
                    RevisionProgressScreen(
                        self.control_plane, result.id, result.latest_revision_id, interval=POLL
                    )
                )

        self.push_screen(DeploymentFormScreen(self.control_plane, deployment, cwd=cwd), done)


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    plane = LocalControlPlane(tmp_path_factory.mktemp("control-plane"))
    plane.start()
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture
async def cp_client(control_plane: LocalControlPlane) -> AsyncIterator[ControlPlaneClient]:
    async with ControlPlaneClient(
        control_plane.url, api_key=control_plane.api_key, retry=RetryPolicy(attempts=1)
    ) as client:
        yield client


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def type_into(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Focus the input and type `text` key by key, as a user would."""
    widget = pilot.app.screen.query_one(selector)
    widget.focus()
    await pilot.pause()
    await pilot.press(*[("space" if c == " " else c) for c in text])


async def screen_of(
    pilot: Pilot[Any], wait_for: WaitFor, kind: type[Screen[Any]], what: str
) -> Any:
    def shown() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, kind) and screen.is_mounted and bool(screen.children)

    await wait_for(pilot, shown, what=what, workers=False)
    await pilot.pause()
    return pilot.app.screen


async def deployed(
    client: ControlPlaneClient, name: str, config: Path = GRAPHS_CONFIG
) -> Deployment:
    """A deployment made through the client, followed to DEPLOYED."""
    created = await client.deployments.create(
        name, source_revision_config={"langgraph_config_path": str(config)}
    )
    assert created.latest_revision_id is not None
    async for revision in client.wait_for_revision(
        created.id, created.latest_revision_id, interval=POLL, timeout=90
    ):
        last = revision.status
    assert last == "DEPLOYED"
    return await client.deployments.get(created.id)


async def shows(pilot: Pilot[Any], wait_for: WaitFor, text: str, timeout: float = 30) -> None:
    """Wait until `text` is painted on the screen."""
    await wait_for(pilot, lambda: text in screen_text(pilot.app), what=repr(text), timeout=timeout)
