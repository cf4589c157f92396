"""`o` on a deployment of the local control plane whose project has its own auth: the
app is let in to the agent server agent-tui started for it, as to its own local server
(the header ``langgraph dev`` lets Studio in with)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from tests.support import deployments as deployments_support
from tests.support.deployments import (
    SIZE,
    SharedPlane,
    control_plane_app,
    create_deployment,
    open_deployments,
    wait_terminal,
)
from tests.support.guarded import guarded_project
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(180)

plane = deployments_support.keyed_plane  # the fixture


async def test_o_opens_a_guarded_deployments_server(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor, tmp_path: Path
) -> None:
    config = guarded_project(tmp_path)
    with plane.http() as http:
        made = create_deployment(http, "guarded", str(config))
        assert wait_terminal(http, made["id"], made["latest_revision_id"]) == "DEPLOYED"
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE) as pilot:
        listing = await open_deployments(app, pilot, wait_for)
        await wait_for(pilot, lambda: listing.table.get_item(made["id"]) is not None)
        listing.table.move_to(made["id"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentDetailScreen))
        detail = app.screen
        assert isinstance(detail, DeploymentDetailScreen)
        await wait_for(pilot, lambda: bool(detail.deployment.url), what="its URL")
        await pilot.press("o")
        await wait_for(
            pilot, lambda: isinstance(app.screen, AssistantsScreen), what="assistants", timeout=30
        )
        assistants = app.screen
        assert isinstance(assistants, AssistantsScreen)
        await wait_for(pilot, lambda: assistants.table.row_count > 0, what="assistant rows")
        assert {a.graph_id for a in assistants.table.items} == {"counter"}
        await pilot.press("ctrl+q")
