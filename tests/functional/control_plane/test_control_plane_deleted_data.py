"""A deleted deployment's data (its server's threads, runs, store and log) goes with it."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_client, create_and_follow
from tests.support.projects import tiny_config


@pytest.mark.timeout(180)
async def test_deleting_a_deployment_removes_its_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "cp"
    config = tiny_config(tmp_path)
    leftover = data / "deployments" / str(uuid.uuid4())  # left by an older version's delete
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            kept, seen = await create_and_follow(client, "kept", config, interval=0.2, timeout=90)
            deleted, seen_too = await create_and_follow(
                client, "deleted", config, interval=0.2, timeout=90
            )
            assert seen[-1] == seen_too[-1] == "DEPLOYED", (seen, seen_too)
            deployed = await client.deployments.get(deleted.id)
            assert deployed.url is not None
            async with httpx.AsyncClient(base_url=deployed.url, trust_env=False, timeout=30) as h:
                thread = (await h.post("/threads", json={})).json()["thread_id"]
                run = {"assistant_id": "tiny", "input": {}}
                assert (await h.post(f"/threads/{thread}/runs/wait", json=run)).is_success
            folder = data / "deployments" / deleted.id
            assert folder.is_dir()
            await client.deployments.delete(deleted.id)
            assert not folder.exists()
            assert (data / "deployments" / kept.id).is_dir()
    leftover.mkdir(parents=True)
    (leftover / "server.log").write_text("old\n")
    (data / "deployments" / "notes").mkdir()  # not a deployment's: not ours to remove
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            assert [d.id for d in (await client.deployments.list()).resources] == [kept.id]
        assert not leftover.exists()
        assert (data / "deployments" / kept.id).is_dir()
        assert (data / "deployments" / "notes").is_dir()
