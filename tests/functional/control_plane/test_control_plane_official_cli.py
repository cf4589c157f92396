"""The official `langgraph` CLI as a client of the local control plane (issue 23).

`langgraph deploy --remote` (no Docker needed) packs a copy of the weather project (its
graph imports a local package only its own environment has), uploads it to the URL the
control plane hands out and follows the revision to DEPLOYED; the deployed graph then
answers with its dependency. It deploys through the ``/api-host`` prefix with a
workspace (``X-Tenant-ID``), as for a self-hosted LangSmith. Then `deploy list
--name-contains`, `revisions list`, `logs --type build|deploy` and `delete` work against
the plain URL. The CLI runs as a subprocess with its analytics off: nothing leaves the
machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import answers, validate
from tests.support.projects import copy_weather_project

CLI = Path(sys.executable).with_name("langgraph")
CLI_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-cli")) as plane:
        yield plane


def langgraph(
    plane: LocalControlPlane, cwd: Path, *args: str, host_url: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run the official CLI against ``plane``; its output (stdout and stderr together)."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANGSMITH_", "LANGCHAIN_", "LANGGRAPH_"))
    }
    clean.update(
        LANGGRAPH_HOST_URL=host_url or plane.url,
        LANGGRAPH_HOST_API_KEY=plane.api_key,
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        NO_COLOR="1",
        **env,
    )
    return subprocess.run(
        [str(CLI), *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def _output(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def test_langgraph_deploy_remote_deploys_a_project_whose_graph_runs(
    control_plane: LocalControlPlane, tmp_path: Path
) -> None:
    config = copy_weather_project(tmp_path)
    project = config.parent
    tenant = "ba0af6e5-8c78-4324-ac8a-056183efc77e"

    deployed = langgraph(
        control_plane,
        project,
        "deploy",
        "--remote",
        "--name",
        "cli-weather",
        "--no-input",
        host_url=f"{control_plane.url}/api-host",
        LANGSMITH_TENANT_ID=tenant,
    )
    assert deployed.returncode == 0, _output(deployed)
    assert "Deployment successful!" in _output(deployed)

    headers = {"X-Api-Key": control_plane.api_key}
    with httpx.Client(base_url=control_plane.url, headers=headers, trust_env=False) as http:
        listed = http.get("/v2/deployments", params={"name_contains": "cli-weather"})
        validate("GET", "/v2/deployments", listed.status_code, listed.content)
        (deployment,) = listed.json()["resources"]
        url = deployment["source_config"]["custom_url"]
        revisions = http.get(f"/v2/deployments/{deployment['id']}/revisions")
        validate(
            "GET",
            f"/v2/deployments/{deployment['id']}/revisions",
            revisions.status_code,
            revisions.content,
        )
    (revision,) = revisions.json()["resources"]
    assert revision["status"] == "DEPLOYED"
    # Built from the revision's own unpacked copy, never from the working copy.
    source = Path(revision["source_revision_config"]["langgraph_config_path"]).parent
    assert revision["id"] in source.parts and not source.is_relative_to(project)
    assert (source / "packages" / "tinyweather").is_dir()
    assert (source.parent / "env").is_dir()  # its environment too: deleted with it

    with httpx.Client(base_url=url, trust_env=False, timeout=30) as agent:
        ran = agent.post("/runs/wait", json={"assistant_id": "weather", "input": {"city": "Oslo"}})
    assert ran.status_code == 200, ran.text
    assert ran.json()["answer"] == "sunny in Oslo"  # tinyweather, from the project's env

    listed_cli = langgraph(control_plane, tmp_path, "deploy", "list", "--name-contains", "weath")
    assert listed_cli.returncode == 0, _output(listed_cli)
    assert deployment["id"] in listed_cli.stdout and url in listed_cli.stdout
    nothing = langgraph(control_plane, tmp_path, "deploy", "list", "--name-contains", "zzz")
    assert "No deployments found." in nothing.stdout

    revisions_cli = langgraph(
        control_plane, tmp_path, "deploy", "revisions", "list", deployment["id"]
    )
    assert revisions_cli.returncode == 0, _output(revisions_cli)
    assert revision["id"] in revisions_cli.stdout and "DEPLOYED" in revisions_cli.stdout

    build = langgraph(
        control_plane,
        tmp_path,
        "deploy",
        "logs",
        "--type",
        "build",
        "--deployment-id",
        deployment["id"],
    )
    assert build.returncode == 0, _output(build)
    assert "graph weather: ok" in build.stdout
    assert "agent server ready at" in build.stdout

    deploy_logs = langgraph(
        control_plane,
        tmp_path,
        "deploy",
        "logs",
        "--type",
        "deploy",
        "--deployment-id",
        deployment["id"],
        "--query",
        "uvicorn running",
    )
    assert deploy_logs.returncode == 0, _output(deploy_logs)
    assert "Uvicorn running" in deploy_logs.stdout
    assert "Worker stats" not in deploy_logs.stdout  # the query filtered the rest out

    deleted = langgraph(control_plane, tmp_path, "deploy", "delete", "--force", deployment["id"])
    assert deleted.returncode == 0, _output(deleted)
    assert f"Deleted deployment {deployment['id']}" in deleted.stdout
    with httpx.Client(base_url=control_plane.url, headers=headers, trust_env=False) as http:
        assert http.get(f"/v2/deployments/{deployment['id']}").status_code == 404
    assert not answers(url)
    assert not source.exists()


def test_langgraph_deploy_remote_of_a_broken_project_fails_with_the_build_log(
    control_plane: LocalControlPlane, tmp_path: Path
) -> None:
    config = copy_weather_project(tmp_path)
    graph = config.parent / "agent.py"
    graph.write_text(graph.read_text() + "\nimport module_nobody_has\n")

    failed = langgraph(
        control_plane, config.parent, "deploy", "--remote", "--name", "cli-broken", "--no-input"
    )
    assert failed.returncode == 1, _output(failed)
    assert "Deployment failed" in _output(failed)
    # The CLI shows the last build lines it read from build_logs.
    assert "No module named 'module_nobody_has'" in _output(failed)


def test_langgraph_deploy_remote_of_a_monorepo_packs_and_runs_the_sibling_package(
    control_plane: LocalControlPlane, tmp_path: Path
) -> None:
    """The official CLI packs `../common` beside the config's folder (their common parent)
    and names `app/langgraph.json`; the revision builds from that layout, so the graph
    imports the sibling package (as `agent-tui deploy` of the same project does)."""
    from tests.support.projects import sibling_package_project

    config = sibling_package_project(tmp_path / "repo")
    deployed = langgraph(
        control_plane, config.parent, "deploy", "--remote", "--name", "cli-mono", "--no-input"
    )
    assert deployed.returncode == 0, _output(deployed)
    headers = {"X-Api-Key": control_plane.api_key}
    with httpx.Client(base_url=control_plane.url, headers=headers, trust_env=False) as http:
        (deployment,) = http.get("/v2/deployments", params={"name_contains": "cli-mono"}).json()[
            "resources"
        ]
        (revision,) = http.get(f"/v2/deployments/{deployment['id']}/revisions").json()["resources"]
    config_path = Path(revision["source_revision_config"]["langgraph_config_path"])
    assert config_path.parts[-2:] == ("app", "langgraph.json")
    with httpx.Client(
        base_url=deployment["source_config"]["custom_url"], trust_env=False, timeout=30
    ) as agent:
        ran = agent.post("/runs/wait", json={"assistant_id": "greeter", "input": {"name": "Bo"}})
    assert ran.status_code == 200, ran.text
    assert ran.json()["answer"] == "hello Bo from common"
