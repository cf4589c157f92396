"""PATCHes whose bodies arrive late must not overwrite what changed meanwhile.

The control plane once read the deployment as soon as a PATCH's headers arrived and
wrote it back, changed, once the body had come: concurrent PATCHes lost each other's
changes, and one landing after a deploy finished put back the deployment as it was
before (AWAITING_DATABASE, no URL) for good.

A slow body is made observable without sleeping: the PATCH is sent with
``Expect: 100-continue``, and the server sends ``100 Continue`` only when the handler
starts reading the body. The body is sent after that.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import agent_tui.local
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.local.control_plane.store import Store
from tests.support.control_plane import answers, checked_client, follow, validate

DEMO_CONFIG = Path(agent_tui.local.__file__).parent / "demo" / "langgraph.json"


class SlowPatch:
    """A PATCH over its own connection, its body held back until `finish`."""

    def __init__(self, url: str, api_key: str, deployment_id: str, body: dict[str, Any]) -> None:
        self.url = urlsplit(url)
        self.api_key = api_key
        self.path = f"/v2/deployments/{deployment_id}"
        self.body = json.dumps(body).encode()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def start(self) -> None:
        """Send the headers; return once the server asks for the body."""
        assert self.url.hostname is not None and self.url.port is not None
        self._reader, self._writer = await asyncio.open_connection(self.url.hostname, self.url.port)
        head = (
            f"PATCH {self.path} HTTP/1.1\r\n"
            f"Host: {self.url.netloc}\r\n"
            f"X-Api-Key: {self.api_key}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(self.body)}\r\n"
            "Expect: 100-continue\r\n"
            "Connection: close\r\n\r\n"
        )
        self._writer.write(head.encode())
        await self._writer.drain()
        interim = await self._reader.readuntil(b"\r\n\r\n")
        assert interim.startswith(b"HTTP/1.1 100"), interim

    async def finish(self) -> tuple[int, dict[str, Any]]:
        """Send the body; the answer's status and JSON (checked against the spec)."""
        assert self._reader is not None and self._writer is not None
        self._writer.write(self.body)
        await self._writer.drain()
        head = await self._reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        content = await self._reader.readexactly(length)
        self._writer.close()
        await self._writer.wait_closed()
        validate("PATCH", self.path, status, content)
        return status, json.loads(content)


# One source_config field each (none of them makes a new revision).
CHANGES: list[dict[str, Any]] = [
    {"integration_id": str(uuid.uuid4())},
    {"repo_url": "https://example.test/repo"},
    {"deployment_type": "prod"},
    {"build_on_push": True},
    {"listener_id": str(uuid.uuid4())},
    {"listener_config": {"k8s_namespace": "agents"}},
    {"install_command": "uv sync"},
    {"build_command": "make"},
]


@pytest.mark.timeout(60)
async def test_eight_concurrent_patches_with_slow_bodies_all_land(tmp_path: Path) -> None:
    with LocalControlPlane(tmp_path / "cp") as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created = await client.deployments.create(
                "concurrent",
                source_revision_config={"langgraph_config_path": str(tmp_path / "none.json")},
            )
            patches = [
                SlowPatch(plane.url, plane.api_key, created.id, {"source_config": change})
                for change in CHANGES
            ]
            # Every handler is waiting for its body before any body is sent.
            await asyncio.gather(*(patch.start() for patch in patches))
            answers_ = await asyncio.gather(*(patch.finish() for patch in patches))
            assert [status for status, _ in answers_] == [200] * len(CHANGES)
            final = (await client.deployments.get(created.id)).raw()["source_config"]
            for change in CHANGES:
                for key, value in change.items():
                    assert final[key] == value, f"the change to {key} was lost"


def _as_the_old_bug_left_it(data_dir: Path, deployment_id: str) -> None:
    # What an older control plane stored when a late PATCH overwrote a finished deploy.
    store = Store(data_dir / "control-plane.sqlite3")
    try:
        doc = store.deployment(deployment_id)
        assert doc is not None
        doc.update(status="AWAITING_DATABASE", active_revision_id=None)
        doc["source_config"]["custom_url"] = None
        store.put_deployment(doc)
    finally:
        store.close()


async def _until_ready(client: Any, deployment_id: str) -> Any:
    seen = []
    for _ in range(900):  # its server starts again in the background
        deployment = await client.deployments.get(deployment_id)
        seen.append(deployment.status)
        if deployment.status == "READY":
            return deployment
        await asyncio.sleep(0.1)
    raise AssertionError(f"never READY again: {seen[-5:]}")


@pytest.mark.timeout(240)
async def test_a_patch_whose_body_lands_after_the_deploy_keeps_it_ready(tmp_path: Path) -> None:
    data = tmp_path / "cp"
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created = await client.deployments.create(
                "late-patch", source_revision_config={"langgraph_config_path": str(DEMO_CONFIG)}
            )
            late = SlowPatch(
                plane.url, plane.api_key, created.id, {"source_config": {"build_on_push": True}}
            )
            await late.start()  # while the first revision is still on its way
            statuses = await follow(
                client, created.id, created.latest_revision_id, interval=0.2, timeout=120
            )
            assert statuses[-1] == "DEPLOYED", statuses
            status, patched = await late.finish()
            assert status == 200
            assert patched["status"] == "READY" and patched["source_config"]["build_on_push"]
            after = await client.deployments.get(created.id)
            assert after.status == "READY" and answers(after.url)
            assert after.active_revision_id == created.latest_revision_id

    # A deployment an older version left without its active revision comes back too.
    _as_the_old_bug_left_it(data, created.id)
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            back = await _until_ready(client, created.id)
            assert back.active_revision_id == created.latest_revision_id
            assert answers(back.url)
