"""A deployment's URL after its server had to start again: never one that nothing serves.

After a control plane restart each deployed deployment's agent server starts again, on
its old port when that is free, else on a new one; until it answers the deployment is
not READY and has no `custom_url`. Here the old port is taken by another program
meanwhile. After a redeploy that fails, the previous revision's server comes back at the
same URL.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import agent_tui.local
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import (
    answers,
    checked_client,
    create_and_follow,
    follow,
    no_start_project,
)

DEMO_CONFIG = Path(agent_tui.local.__file__).parent / "demo" / "langgraph.json"


@pytest.mark.timeout(180)
async def test_a_restart_with_the_old_port_taken_reports_the_new_url(tmp_path: Path) -> None:
    data = tmp_path / "cp"
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, statuses = await create_and_follow(
                client, "restarted", DEMO_CONFIG, interval=0.2, timeout=90
            )
            assert created.latest_revision_id is not None
            assert statuses[-1] == "DEPLOYED"
            before = await client.deployments.get(created.id)
            assert before.status == "READY" and before.url is not None
    old_port = urlsplit(before.url).port
    assert old_port is not None and not answers(before.url)

    # Another program listens on the old port (and never answers).
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("127.0.0.1", old_port))
    squatter.listen(1)
    try:
        with LocalControlPlane(data) as plane:
            async with checked_client(plane.url, api_key=plane.api_key) as client:
                first = (await client.deployments.list()).resources
                assert [d.id for d in first] == [created.id]
                assert first[0].status != "READY" and first[0].url is None
                seen = []
                for _ in range(600):  # the restart runs in the background
                    now = await client.deployments.get(created.id)
                    seen.append(now.status)
                    if now.status == "READY":
                        break
                    assert now.url is None, "a URL before its server answers"
                    await asyncio.sleep(0.1)
                assert now.status == "READY", seen
                assert now.url is not None and urlsplit(now.url).port != old_port
                assert answers(now.url)
                assert now.active_revision_id == created.latest_revision_id
                logs = await client.revisions.logs(created.id, created.latest_revision_id)
                assert f"restarted at {now.url}" in logs.lines
    finally:
        squatter.close()


@pytest.mark.timeout(180)
async def test_a_failed_redeploy_brings_the_old_server_back_at_its_url(tmp_path: Path) -> None:
    no_start = no_start_project(tmp_path)
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created, statuses = await create_and_follow(
                client, "kept", DEMO_CONFIG, interval=0.2, timeout=90
            )
            assert created.latest_revision_id is not None
            assert statuses[-1] == "DEPLOYED"
            before = await client.deployments.get(created.id)
            assert before.url is not None

            patched = await client.deployments.patch(
                created.id, source_revision_config={"langgraph_config_path": str(no_start)}
            )
            assert patched.latest_revision_id is not None
            statuses = await follow(
                client, created.id, patched.latest_revision_id, interval=0.2, timeout=90
            )
            assert statuses[-1] == "DEPLOY_FAILED"
            after = await client.deployments.get(created.id)
            assert after.status == "READY"
            assert after.active_revision_id == created.latest_revision_id
            assert after.url == before.url and answers(after.url)
