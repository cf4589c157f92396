"""A build reads the project's files only when they are regular files of a sane size.

`/dev/zero` as a config once made the build read without bound (9.5 GB in 30 s), and a
FIFO blocked it for good. The API refuses such a `langgraph_config_path` up front
(`test_control_plane_hostile_bodies.py`); here the file becomes one after the deployment
was created, or the config's ``env`` names one: the build ends, saying why.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent_tui.client import ControlPlaneClient
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_client, follow

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev/zero")


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-files")) as plane:
        yield plane


@pytest.fixture
async def client(control_plane: LocalControlPlane) -> AsyncIterator[ControlPlaneClient]:
    async with checked_client(control_plane.url, api_key=control_plane.api_key) as c:
        yield c


@contextlib.contextmanager
def released(fifo: Path) -> Iterator[None]:
    """Whatever happens, a reader blocked on ``fifo`` is let go at the end."""
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # ENXIO: nobody reads it
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def project(folder: Path, **config: object) -> Path:
    """A project whose graph file is missing (its build fails fast, after the config)."""
    folder.mkdir()
    path = folder / "langgraph.json"
    path.write_text(json.dumps({"graphs": {"agent": "./missing.py:graph"}, **config}))
    return path


@pytest.mark.timeout(60)
@pytest.mark.parametrize("env", ["a FIFO", "/dev/zero"])
async def test_an_env_file_that_is_not_a_regular_file_is_not_read(
    client: ControlPlaneClient, tmp_path: Path, env: str
) -> None:
    fifo = tmp_path / "env.fifo"
    os.mkfifo(fifo)
    target = str(fifo) if env == "a FIFO" else "/dev/zero"
    config = project(tmp_path / "p", env=target)
    with released(fifo):
        created = await client.deployments.create(
            "env", source_revision_config={"langgraph_config_path": str(config)}
        )
        statuses = await follow(
            client, created.id, created.latest_revision_id, interval=0.1, timeout=45
        )
    assert statuses[-1] == "BUILD_FAILED"
    assert created.latest_revision_id is not None
    logs = (await client.revisions.logs(created.id, created.latest_revision_id)).lines
    kind = "a named pipe" if env == "a FIFO" else "a character device"
    assert any(f"was not read: it is {kind}, not a regular file" in line for line in logs), logs
    assert any("no such file" in line for line in logs), logs  # the build went on to the graphs


@pytest.mark.timeout(60)
async def test_a_config_that_became_a_fifo_fails_its_build(
    client: ControlPlaneClient, tmp_path: Path
) -> None:
    config = project(tmp_path / "p")
    created = await client.deployments.create(
        "became-fifo", source_revision_config={"langgraph_config_path": str(config)}
    )
    first = created.latest_revision_id
    assert first is not None
    assert (await follow(client, created.id, first, interval=0.1, timeout=45))[-1] == (
        "BUILD_FAILED"
    )
    config.unlink()
    os.mkfifo(config)
    with released(config):
        redeployed = await client.revisions.redeploy(created.id, first)
        revision = redeployed.latest_revision_id
        statuses = await follow(client, created.id, revision, interval=0.1, timeout=45)
    assert statuses[-1] == "BUILD_FAILED"
    assert revision is not None
    logs = (await client.revisions.logs(created.id, revision)).lines
    assert any("not read: it is a named pipe, not a regular file" in line for line in logs), logs
