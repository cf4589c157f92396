"""An uploaded ``langgraph.json`` cannot reach outside its upload, nor set what changes
how the server process runs; its revision fails to build, its log says why, and nothing
outside the upload is imported. A local ``langgraph.json`` (the user's own project) may
name files anywhere, but its ``env`` follows the same name rule. `/v2` answers are
checked against the spec.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import NOOP_GRAPH, revision_reaches
from tests.support.control_plane_uploads import checked, create_empty, upload_revision

UP = "../" * 40
"""Enough ``..`` to reach the root from any revision's source folder."""


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-config-rules")) as plane:
        yield plane


@pytest.fixture
def http(control_plane: LocalControlPlane) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": control_plane.api_key}
    with httpx.Client(
        base_url=control_plane.url, headers=headers, trust_env=False, timeout=60
    ) as client:
        yield client


def build_failure(http: httpx.Client, deployment: dict[str, object]) -> list[str]:
    """Wait for the latest revision to fail its build: its log lines."""
    did, rid = str(deployment["id"]), str(deployment["latest_revision_id"])
    revision_reaches(http, did, rid, "BUILD_FAILED", 60)
    lines: list[str] = http.get(f"/v2/deployments/{did}/revisions/{rid}/logs").json()["lines"]
    return lines


def outside_graph(folder: Path) -> tuple[Path, Path]:
    """A graph file outside any upload that leaves a marker when imported."""
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / "imported.marker"
    graph = folder / "outside.py"
    graph.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n{NOOP_GRAPH}"
    )
    return graph, marker


@pytest.mark.parametrize("name", ["LD_PRELOAD", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS"])
def test_an_uploaded_env_that_changes_how_the_server_runs_fails_the_build(
    http: httpx.Client, name: str
) -> None:
    config = {"graphs": {"agent": "./agent.py:graph"}, "env": {name: "/tmp/anything"}}
    files = {"langgraph.json": json.dumps(config).encode(), "agent.py": NOOP_GRAPH.encode()}
    lines = build_failure(http, upload_revision(http, create_empty(http)["id"], files))
    assert f'build failed: langgraph.json "env" cannot set {name} is reserved' in "\n".join(lines)
    assert not any(line.startswith("graph agent") for line in lines)  # nothing imported


@pytest.mark.parametrize("how", ["absolute", "dot-dot"])
def test_an_uploaded_graph_outside_the_upload_is_never_imported(
    http: httpx.Client, tmp_path: Path, how: str
) -> None:
    graph, marker = outside_graph(tmp_path / "elsewhere")
    ref = str(graph) if how == "absolute" else UP + str(graph).lstrip("/")
    config = {"graphs": {"agent": f"{ref}:graph"}}
    files = {"langgraph.json": json.dumps(config).encode()}
    lines = build_failure(http, upload_revision(http, create_empty(http)["id"], files))
    expected = f"build failed: graph 'agent' is {graph}, outside the uploaded source"
    assert any(line.startswith(expected) for line in lines), lines
    assert not marker.exists()


def test_uploaded_dependencies_and_env_files_outside_the_upload_are_refused(
    http: httpx.Client, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".env").write_text("AGENT_TUI_CONTROL_PLANE_KEY=stolen\n")
    config = {
        "graphs": {"agent": "./agent.py:graph"},
        "dependencies": [
            ".",
            f" {elsewhere}",  # the environment build strips it: still a local folder
            f"tool @ file://{elsewhere}",
            f"-r{elsewhere}/requirements.txt",  # an option to the installer
        ],
        "env": UP + str(elsewhere / ".env").lstrip("/"),
    }
    files = {"langgraph.json": json.dumps(config).encode(), "agent.py": NOOP_GRAPH.encode()}
    lines = build_failure(http, upload_revision(http, create_empty(http)["id"], files))
    refused = [line for line in lines if line.startswith("build failed:")]
    assert len(refused) == 4, refused
    assert f"dependency {str(elsewhere)!r} is outside the uploaded source" in refused[0]
    assert "is a file: URL" in refused[1]
    assert "is an installer option, not a requirement" in refused[2]
    assert f"the env file {elsewhere / '.env'} is outside" in refused[3]
    assert not any("AGENT_TUI_CONTROL_PLANE_KEY" in line for line in lines)  # not read out


def test_a_local_project_may_name_files_anywhere_and_set_its_own_env(
    http: httpx.Client, tmp_path: Path
) -> None:
    graph, marker = outside_graph(tmp_path / "shared")
    project = tmp_path / "project"
    project.mkdir()
    config = project / "langgraph.json"
    # As under `langgraph dev`: files anywhere, and the env the user's machine needs.
    config.write_text(
        json.dumps(
            {
                "graphs": {"agent": f"../shared/{graph.name}:graph"},
                "env": {"SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"},
            }
        )
    )
    body = {
        "name": "local-outside",
        "source": "internal_source",
        "source_config": {},
        "source_revision_config": {"langgraph_config_path": str(config)},
        "secrets": [],
    }
    created = checked(http.post("/v2/deployments", json=body)).json()
    revision_reaches(http, created["id"], created["latest_revision_id"], "DEPLOYED", 120)
    assert marker.exists()  # the user's own file, imported where it is
    http.delete(f"/v2/deployments/{created['id']}")
