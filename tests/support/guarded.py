"""A project with its own auth (`langgraph.json` `auth`): its handler lets in only
``Authorization: Bearer let-me-in`` and says "the project says no" to anything else."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_tui.local import EmbeddedAgentServer
from tests.support.paths import GRAPHS

TOKEN = "let-me-in"
REFUSAL = "the project says no"
AUTH = f"""
from langgraph_sdk import Auth

auth = Auth()


@auth.authenticate
async def authenticate(authorization: str | None) -> str:
    if authorization != "Bearer {TOKEN}":
        raise Auth.exceptions.HTTPException(status_code=401, detail="{REFUSAL}")
    return "a-user-of-the-project"
"""


def guarded_project(folder: Path) -> Path:
    """The counter graph behind the project's auth, in ``folder``; its langgraph.json."""
    shutil.copy(GRAPHS / "counter.py", folder / "counter.py")
    (folder / "auth.py").write_text(AUTH)
    config = {"graphs": {"counter": "./counter.py:graph"}, "auth": {"path": "./auth.py:auth"}}
    (folder / "langgraph.json").write_text(json.dumps(config))
    return folder / "langgraph.json"


@contextmanager
def guarded_server(project: Path, data: Path) -> Iterator[str]:
    """A local server on the guarded project in ``project`` (a folder); its URL."""
    config = guarded_project(project)
    with EmbeddedAgentServer(config, data_dir=data, log_file=data / "server.log") as server:
        yield server.url


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a server on the guarded project, one per test module (bind it in a
    module: ``guarded = guarded_support.guarded``)."""
    project = tmp_path_factory.mktemp("guarded")
    with guarded_server(project, tmp_path_factory.mktemp("guarded-data")) as url:
        yield url
