"""Which rows of the Deployments table keep it refreshing itself: a deployment whose
server is coming back (after a control plane restart) does; one that never deployed
does not."""

from __future__ import annotations

from typing import Any

from agent_tui.client.models.control_plane import Deployment
from agent_tui.tui.screens.deployments.list import DeploymentRow


def deployment(status: str, active: str | None) -> Deployment:
    body: dict[str, Any] = {
        "id": "0b7e5f6a-0000-4000-8000-000000000001",
        "name": "demo",
        "source": "internal_source",
        "status": status,
        "active_revision_id": active,
    }
    return Deployment.model_validate(body)


def test_a_served_deployment_coming_back_is_changing() -> None:
    assert DeploymentRow(deployment("AWAITING_DATABASE", "rev-1")).changing


def test_a_deployment_that_never_deployed_is_settled() -> None:
    assert not DeploymentRow(deployment("AWAITING_DATABASE", None)).changing
    assert not DeploymentRow(deployment("READY", "rev-1")).changing
