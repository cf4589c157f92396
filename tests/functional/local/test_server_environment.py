"""What a graph can read of the environment of the server agent-tui starts for it.

Every local server (the app's embedded one, `agent-tui serve`'s, a local control plane's
deployment) runs the project's code, which can read its whole environment. It gets the
project's ``env``, the deployment's secrets and what a process needs, never agent-tui's
own keys: the control plane's, the LangSmith key agent-tui connects with, the variable a
context reads its key from.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_client, follow
from tests.support.projects import env_echo_project
from tests.support.serve import Serve

CALLER = {
    # agent-tui's own keys: never in a server.
    "AGENT_TUI_CONTROL_PLANE_KEY": "cp-key-must-stay-home",
    "LANGSMITH_API_KEY": "ls-key-must-stay-home",
    "PROD_SERVER_API_KEY": "context-key-must-stay-home",  # a context's api_key_env
    # Not a process's need, nor a provider's: left behind.
    "SOME_SHELL_SETTING": "left behind",
    # A provider key the user exported, the locale and a proxy setting: passed.
    "OPENAI_API_KEY": "sk-provider",
    "LC_ALL": "C.UTF-8",
    "no_proxy": "internal.example",
}
WITHHELD = ["AGENT_TUI_CONTROL_PLANE_KEY", "LANGSMITH_API_KEY", "PROD_SERVER_API_KEY"]
PASSED = {"OPENAI_API_KEY": "sk-provider", "LC_ALL": "C.UTF-8", "no_proxy": "internal.example"}
PROJECT_ENV = {"PROJECT_SETTING": "from langgraph.json"}
NAMES = [*CALLER, *PROJECT_ENV, "PATH", "HOME", "DEPLOY_SECRET", "LANGSMITH_ENDPOINT"]


@pytest.fixture
def caller_env(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """agent-tui's environment: keys of its own, a context naming a key variable."""
    config_file.write_text(
        '[contexts.prod]\nagent_server_url = "https://prod.example"\n'
        'api_key_env = "PROD_SERVER_API_KEY"\n'
    )
    for name, value in CALLER.items():
        monkeypatch.setenv(name, value)
    return dict(os.environ)


def _read_env(url: str) -> dict[str, str | None]:
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as http:
        answer = http.post(
            "/runs/wait", json={"assistant_id": "env_echo", "input": {"names": NAMES}}
        )
    answer.raise_for_status()
    values: dict[str, str | None] = answer.json()["values"]
    return values


def _assert_allow_listed(values: dict[str, str | None], secrets: dict[str, str]) -> None:
    kept_home = [name for name in WITHHELD if name != "LANGSMITH_API_KEY"]
    assert {name: values[name] for name in kept_home} == dict.fromkeys(kept_home)
    # A server agent-tui starts may hold a key, but only its local trace collector's,
    # with that collector's loopback URL; never the key agent-tui itself connects with.
    # (Compared, not printed: the collector's key stays out of the test's output.)
    traced_key = values["LANGSMITH_API_KEY"]
    assert traced_key != CALLER["LANGSMITH_API_KEY"], "agent-tui's own LangSmith key leaked"
    if traced_key is not None:
        endpoint = values["LANGSMITH_ENDPOINT"] or ""
        assert endpoint.startswith("http://127.0.0.1:"), endpoint
    assert values["SOME_SHELL_SETTING"] is None
    assert {name: values[name] for name in PASSED} == PASSED
    assert values["PROJECT_SETTING"] == "from langgraph.json"
    assert values["PATH"] == os.environ["PATH"] and values["HOME"] == os.environ["HOME"]
    assert values["DEPLOY_SECRET"] == secrets.get("DEPLOY_SECRET")


@pytest.mark.timeout(120)
def test_the_embedded_server_gets_the_project_env_and_no_agent_tui_key(
    tmp_path: Path, caller_env: dict[str, str]
) -> None:
    config = env_echo_project(tmp_path / "project", PROJECT_ENV)
    server = EmbeddedAgentServer(
        config, data_dir=tmp_path / "data", log_file=tmp_path / "server.log"
    )
    with server:
        _assert_allow_listed(_read_env(server.url), {})


@pytest.mark.timeout(150)
def test_serve_gets_the_project_env_and_no_agent_tui_key(
    tmp_path: Path, caller_env: dict[str, str]
) -> None:
    config = env_echo_project(tmp_path / "project", PROJECT_ENV)
    serve = Serve(tmp_path / "home", config.parent, env=caller_env)
    try:
        _assert_allow_listed(_read_env(serve.url()), {})
        assert serve.stop() == 0
    finally:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait(10)


@pytest.mark.timeout(180)
async def test_a_deployment_gets_its_secrets_and_no_control_plane_key(
    tmp_path: Path, caller_env: dict[str, str]
) -> None:
    config = env_echo_project(tmp_path / "project", PROJECT_ENV)
    secrets = {"DEPLOY_SECRET": "open sesame"}
    with LocalControlPlane(tmp_path / "cp") as plane:
        assert plane.api_key == CALLER["AGENT_TUI_CONTROL_PLANE_KEY"]
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created = await client.deployments.create(
                "env",
                source_revision_config={"langgraph_config_path": str(config)},
                secrets=[{"name": k, "value": v} for k, v in secrets.items()],
            )
            statuses = await follow(
                client, created.id, created.latest_revision_id, interval=0.2, timeout=120
            )
            assert statuses[-1] == "DEPLOYED", statuses
            deployed = await client.deployments.get(created.id)
            assert deployed.url is not None
            _assert_allow_listed(_read_env(deployed.url), secrets)
            await client.deployments.delete(created.id)


def test_the_graph_check_imports_the_graphs_without_agent_tui_keys(
    tmp_path: Path, caller_env: dict[str, str]
) -> None:
    # The check before a start or a reload runs the project's modules too.
    from agent_tui.local.live_reload.graph_check import check_graphs

    config = env_echo_project(tmp_path / "project", PROJECT_ENV)
    (config.parent / "env_echo.py").write_text(
        "import os\n"
        f"leaked = [n for n in {WITHHELD!r} if n in os.environ]\n"
        "if leaked:\n"
        "    raise RuntimeError(f'leaked: {leaked}')\n"
        + (config.parent / "env_echo.py").read_text()
    )
    check = check_graphs(config, env=PROJECT_ENV)
    assert check.ok, check.problems


@pytest.mark.timeout(240)
async def test_a_reserved_secret_an_older_version_stored_is_left_out(
    tmp_path: Path, caller_env: dict[str, str]
) -> None:
    # The API refuses a secret named HOME now; an older version stored what it was given.
    config = env_echo_project(tmp_path / "project", PROJECT_ENV)
    secrets = {"DEPLOY_SECRET": "open sesame"}
    data = tmp_path / "cp"
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            created = await client.deployments.create(
                "env",
                source_revision_config={"langgraph_config_path": str(config)},
                secrets=[{"name": k, "value": v} for k, v in secrets.items()],
            )
            statuses = await follow(
                client, created.id, created.latest_revision_id, interval=0.2, timeout=120
            )
            assert statuses[-1] == "DEPLOYED", statuses
    stored = [{"name": "DEPLOY_SECRET", "value": "open sesame"}, {"name": "HOME", "value": "/x"}]
    db = sqlite3.connect(data / "control-plane.sqlite3")
    try:
        db.execute("UPDATE revisions SET secrets = ?", (json.dumps(stored),))
        db.commit()
    finally:
        db.close()
    with LocalControlPlane(data) as plane:
        async with checked_client(plane.url, api_key=plane.api_key) as client:
            deadline = time.monotonic() + 120
            while (deployed := await client.deployments.get(created.id)).url is None:
                assert time.monotonic() < deadline, "the deployment did not come back"
                await asyncio.sleep(0.2)  # the restart runs in the background
            assert deployed.url is not None
            _assert_allow_listed(await asyncio.to_thread(_read_env, deployed.url), secrets)
            assert created.latest_revision_id is not None
            logs = await client.revisions.logs(created.id, created.latest_revision_id)
            assert any("'HOME' left out" in line for line in logs.lines)
