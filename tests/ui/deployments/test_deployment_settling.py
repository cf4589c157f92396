"""A deployment's detail keeps reading it until it is READY again, after its revisions
are all done: its new revision turns DEPLOYED a moment before the deployment is READY
again, and a reload reads the deployment, then its revisions. Which of the two answers
first is a race; under load the detail read AWAITING_DATABASE, then DEPLOYED, and never
asked again (every revision done): its heading stayed there. The stale read below makes
that losing order certain."""

from __future__ import annotations

import threading

import pytest

from agent_tui.client.control_plane import DeploymentsClient
from agent_tui.client.models.control_plane import Deployment
from tests.support import deployments as deployments_support
from tests.support.deployments import (
    SIZE,
    SharedPlane,
    control_plane_app,
    heading,
    open_alpha,
)
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(120)


plane = deployments_support.keyed_plane  # the fixture


async def test_the_heading_follows_the_deployment_until_it_is_ready_again(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    switched = threading.Event()
    read = DeploymentsClient.get

    async def read_before_the_switch(self: DeploymentsClient, deployment_id: str) -> Deployment:
        deployment = await read(self, deployment_id)
        if switched.is_set():
            return deployment
        return deployment.model_copy(update={"status": "AWAITING_DATABASE"})

    monkeypatch.setattr(DeploymentsClient, "get", read_before_the_switch)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE) as pilot:
        detail = await open_alpha(app, pilot, plane, wait_for)
        await wait_for(
            pilot,
            lambda: (
                all(revision.is_terminal for revision in detail.table.items)
                and "AWAITING_DATABASE" in heading(detail)
            ),
            what="every revision done, the deployment read on its way",
        )
        switched.set()
        await wait_for(pilot, lambda: "READY" in heading(detail), what="READY", timeout=30)
