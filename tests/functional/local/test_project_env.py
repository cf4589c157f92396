"""The project's environment, built for real with uv, and a server running on it.

The weather project's graph imports ``tinyweather``, which only its environment has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agent_tui.local import EmbeddedAgentServer, load_langgraph_config
from agent_tui.local.project_env.environment import (
    BuildProgress,
    EnvironmentBuildError,
    ensure_environment,
    is_current,
    plan_environment,
)
from tests.support.projects import add_dependency, copy_weather_project


def imports(python: str, module: str) -> bool:
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def test_the_environment_has_the_project_dependency_and_is_reused(tmp_path: Path) -> None:
    config = load_langgraph_config(copy_weather_project(tmp_path))
    steps: list[BuildProgress] = []
    python = ensure_environment(config, steps.append, env_dir=tmp_path / "env")

    assert python != sys.executable
    assert imports(python, "tinyweather")
    assert not imports(sys.executable, "tinyweather")  # agent-tui's own has not got it
    # What the server needs is installed in it, and nothing else of agent-tui's own.
    assert imports(python, "langgraph_api")
    assert imports(python, "agent_tui.server.main")
    assert not imports(python, "textual")
    # What the start-up screen shows: uv's lines and a count of packages.
    assert any("tinyweather" in step.line for step in steps)
    # Built beside it and renamed: uv's lines name the folder the user will find.
    env_dir = str(tmp_path / "env")
    assert any(env_dir in step.line for step in steps)
    assert not any(env_dir + ".new" in step.line for step in steps)
    assert steps[-1].stage == "environment ready"
    counted = [step for step in steps if step.total]
    assert counted and counted[-1].done == counted[-1].total and counted[-1].done > 1

    # Unchanged: used as it is, uv does not run.
    again: list[BuildProgress] = []
    assert ensure_environment(config, again.append, env_dir=tmp_path / "env") == python
    assert again == []

    # An edit to langgraph.json that installs nothing (another graph, its env) is no
    # reason to rebuild either: the next start is as fast.
    raw = json.loads(config.path.read_text())
    raw["graphs"]["weather_too"] = raw["graphs"]["weather"]
    raw["env"] = {"WEATHER_GREETING": "from the mapping"}
    config.path.write_text(json.dumps(raw))
    edited = load_langgraph_config(config.path)
    assert ensure_environment(edited, again.append, env_dir=tmp_path / "env") == python
    assert again == []


def test_a_changed_dependency_file_rebuilds(tmp_path: Path) -> None:
    config_path = copy_weather_project(tmp_path)
    python = ensure_environment(load_langgraph_config(config_path), env_dir=tmp_path / "env")
    package = config_path.parent / "packages" / "tinyweather"
    pyproject = package / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.2.0"'))

    steps: list[BuildProgress] = []
    ensure_environment(load_langgraph_config(config_path), steps.append, env_dir=tmp_path / "env")
    assert steps, "a changed pyproject.toml must rebuild"
    version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('tinyweather'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == "0.2.0"


def test_a_dependency_that_cannot_be_installed_fails_with_uvs_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_path = copy_weather_project(tmp_path)
    python = ensure_environment(load_langgraph_config(config_path), env_dir=tmp_path / "env")
    # Offline from here: everything else is in uv's cache now (a fresh machine's too),
    # and the missing package is not looked for on the network.
    monkeypatch.setenv("UV_OFFLINE", "1")
    add_dependency(config_path, "agent-tui-no-such-package-4711==0.0.1")
    with pytest.raises(EnvironmentBuildError) as failure:
        ensure_environment(load_langgraph_config(config_path), env_dir=tmp_path / "env")
    assert failure.value.reason == "uv could not install the project's dependencies"
    said = "\n".join(failure.value.lines)
    assert "agent-tui-no-such-package-4711" in said
    assert "Traceback" not in said
    # The environment a server already runs on is untouched: what it imports later
    # (a graph importing inside a function) is still there.
    assert imports(python, "tinyweather")
    # Nothing half-built is taken for a good environment next time.
    plan = plan_environment(load_langgraph_config(config_path), tmp_path / "env")
    assert not is_current(plan)
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("env")) == [
        "env",
        "env.lock",
    ]


async def test_the_server_runs_the_graph_in_its_environment_with_its_env(
    tmp_path: Path,
) -> None:
    config_path = copy_weather_project(tmp_path)
    python = ensure_environment(load_langgraph_config(config_path), env_dir=tmp_path / "env")
    server = EmbeddedAgentServer(
        config_path, data_dir=tmp_path / "data", log_file=tmp_path / "server.log", python=python
    )
    async with server, httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        answer = await http.post(
            "/runs/wait", json={"assistant_id": "weather", "input": {"city": "Oslo"}}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["answer"] == "sunny in Oslo"
        # langgraph.json's "env": ".env" reached the graph...
        assert answer.json()["greeting"] == "hello from .env"
    # ...and its value is in no log.
    assert "hello from .env" not in (tmp_path / "server.log").read_text()


def test_a_python_version_uv_cannot_provide_falls_back_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_OFFLINE", "1")
    config_path = copy_weather_project(tmp_path)
    raw = json.loads(config_path.read_text())
    config_path.write_text(json.dumps({**raw, "python_version": "3.99"}))
    steps: list[BuildProgress] = []
    python = ensure_environment(
        load_langgraph_config(config_path), steps.append, env_dir=tmp_path / "env"
    )
    assert any("python_version 3.99 is not available" in step.line for step in steps)
    assert imports(python, "tinyweather")
