"""`agent-tui deploy` and `agent-tui deployments logs | revisions | redeploy | delete`
against a real local control plane over HTTP (issue 23).

One deployment of a copy of the weather project (its graph imports a local package only
its own environment has) serves most of the tests, in file order: deploy builds an
environment, which takes a while. The first deploy goes through the `/api-host` prefix
with a workspace id, as to a self-hosted LangSmith. The project has a `.gitignore`
leaving a file out, and a `.venv` folder: neither reaches the revision's source folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from agent_tui.cli.main import main
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import revision_reaches
from tests.support.projects import copy_weather_project, sibling_package_project

NAME = "cmd-weather"
SECRET_VALUE = "weather-secret-value-5e1d"  # must never be printed
TENANT = "ba0af6e5-8c78-4324-ac8a-056183efc77e"
DEPLOY_TIMEOUT = 600


@dataclass
class Ran:
    code: int
    out: str
    err: str


def agent_tui(*argv: str, cwd: Path | None = None) -> Ran:
    """`agent-tui ARGV` in this process, in ``cwd``, with stdin not a terminal."""
    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if cwd is not None:
                os.chdir(cwd)
            code = main(list(argv))
        except SystemExit as exited:
            code = int(exited.code or 0)
        finally:
            os.chdir(before)
    return Ran(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-deploy") / "data") as control_plane:
        yield control_plane


def where(plane: LocalControlPlane, prefix: str = "") -> list[str]:
    return ["--control-plane", plane.url + prefix, "--control-plane-key", plane.api_key]


def http(plane: LocalControlPlane) -> httpx.Client:
    return httpx.Client(
        base_url=plane.url, headers={"X-Api-Key": plane.api_key}, trust_env=False, timeout=30
    )


def wait_deployed(plane: LocalControlPlane, deployment_id: str, revision_id: str) -> None:
    with http(plane) as client:
        revision_reaches(client, deployment_id, revision_id, "DEPLOYED", DEPLOY_TIMEOUT)


@dataclass
class Deployed:
    project: Path
    run: Ran
    deployment: dict[str, object]


@pytest.fixture(scope="module")
def deployed(plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Deployed:
    project = copy_weather_project(tmp_path_factory.mktemp("deploy-project")).parent
    (project / ".gitignore").write_text("# not for the server\nnotes/\n*.secret\n")
    (project / "notes").mkdir()
    (project / "notes" / "todo.md").write_text("private")
    (project / "token.secret").write_text("private")
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / ".venv" / "lib" / "big.py").write_text("x = 1\n")
    ran = agent_tui(
        "deploy",
        "--name",
        NAME,
        "--secret",
        f"WEATHER_TOKEN={SECRET_VALUE}",
        "--interval",
        "0.3",
        *where(plane, "/api-host"),
        "--tenant-id",
        TENANT,
        cwd=project,
    )
    with http(plane) as client:
        (deployment,) = client.get("/v2/deployments", params={"name_contains": NAME}).json()[
            "resources"
        ]
    return Deployed(project, ran, deployment)


@pytest.mark.timeout(DEPLOY_TIMEOUT)
def test_deploy_packs_the_folder_and_follows_its_build_to_deployed(
    plane: LocalControlPlane, deployed: Deployed
) -> None:
    ran = deployed.run
    assert ran.code == 0, ran.out + ran.err
    assert "graph weather: ok" in ran.out  # build lines, as they came
    assert "DEPLOYED" in ran.out
    url = deployed.deployment["source_config"]["custom_url"]  # type: ignore[index]
    assert f"deployed: {url}" in ran.out
    assert SECRET_VALUE not in ran.out + ran.err
    assert deployed.deployment["secrets"][0]["name"] == "WEATHER_TOKEN"  # type: ignore[index]

    with httpx.Client(base_url=str(url), trust_env=False, timeout=30) as agent:
        answer = agent.post(
            "/runs/wait", json={"assistant_id": "weather", "input": {"city": "Oslo"}}
        )
    assert answer.status_code == 200, answer.text
    assert answer.json()["answer"] == "sunny in Oslo"

    revision = deployed.deployment["latest_revision_id"]
    source = (
        plane.data_dir / "deployments" / str(deployed.deployment["id"]) / "revisions"
    ) / f"{revision}/source"
    assert (source / "agent.py").is_file() and (source / "packages" / "tinyweather").is_dir()
    assert (source / ".gitignore").is_file()
    assert not (source / "notes").exists()
    assert not (source / "token.secret").exists()
    assert not (source / ".venv").exists()


def test_logs_show_the_build_lines_filtered_and_as_json(
    plane: LocalControlPlane, deployed: Deployed
) -> None:
    build = agent_tui("deployments", "logs", NAME, "--type", "build", *where(plane))
    assert build.code == 0, build.err
    assert "graph weather: ok" in build.out and "agent server ready at" in build.out

    found = agent_tui(
        "deployments", "logs", NAME, "--type", "build", "--query", "GRAPH WEATHER", *where(plane)
    )
    assert found.code == 0, found.err
    lines = found.out.splitlines()
    assert lines and all("graph weather" in line for line in lines)
    assert "agent server ready at" not in found.out

    as_json = agent_tui(
        "deployments", "logs", str(deployed.deployment["id"]), "--type", "build", "--json",
        *where(plane),
    )  # fmt: skip
    assert as_json.code == 0, as_json.err
    entries = json.loads(as_json.out)
    assert {"id", "timestamp", "level", "message"} <= set(entries[0])
    assert any(e["message"].startswith("graph weather: ok") for e in entries)

    served = agent_tui("deployments", "logs", NAME, "--query", "uvicorn running", *where(plane))
    assert served.code == 0, served.err
    assert "Uvicorn running" in served.out  # the deployment's agent server log


@contextlib.contextmanager
def following(plane: LocalControlPlane, *argv: str) -> Iterator[subprocess.Popen[str]]:
    """`agent-tui ARGV` as its own process, its key in its environment (a command line
    shows in a failure's output), killed if still running at the end."""
    env = {**os.environ, "AGENT_TUI_CONTROL_PLANE_KEY": plane.api_key}
    follower = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "agent_tui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        yield follower
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()


def ended_by_ctrl_c(follower: subprocess.Popen[str]) -> str:
    """Press ctrl+c; what the follower wrote to stderr once it ended. If it does not end,
    the failure shows where each of its threads was (faulthandler's dump on SIGABRT)."""
    assert follower.poll() is None  # still following
    follower.send_signal(signal.SIGINT)
    try:
        code = follower.wait(60)
    except subprocess.TimeoutExpired:
        # How it took its signals (ignored, blocked, caught): inherited from this worker?
        status = Path(f"/proc/{follower.pid}/status")
        dispositions = [
            line
            for line in (status.read_text().splitlines() if status.exists() else [])
            if line.startswith(("SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd"))
        ]
        follower.send_signal(signal.SIGABRT)
        follower.wait(30)
        stuck = follower.stderr.read() if follower.stderr else ""
        raise AssertionError(
            f"ctrl+c did not end the follower in 60 s ({'; '.join(dispositions)}):\n{stuck}"
        ) from None
    err = follower.stderr.read() if follower.stderr else ""
    assert code == 130, err
    return err


def test_logs_follow_prints_the_lines_then_waits_until_ctrl_c(
    plane: LocalControlPlane, deployed: Deployed
) -> None:
    argv = ["deployments", "logs", NAME, "--type", "build", "--follow", "--interval", "0.2"]
    with following(plane, *argv, "--control-plane", plane.url) as follower:
        assert follower.stdout is not None
        seen: list[str] = []
        for line in follower.stdout:  # as they come: the follower never ends by itself
            seen.append(line)
            if "agent server ready at" in line:
                break
        assert any("graph weather: ok" in line for line in seen), seen
        assert "Traceback" not in ended_by_ctrl_c(follower)


def test_logs_follow_starts_from_the_newest_lines_then_prints_new_ones(
    plane: LocalControlPlane, deployed: Deployed
) -> None:
    """As `tail -f` and `langgraph deploy logs --follow`: the newest --limit lines, not
    the whole log, then each line the agent server writes afterwards."""
    newest = agent_tui("deployments", "logs", NAME, "--limit", "2", "--json", *where(plane))
    assert newest.code == 0, newest.err
    last_two = [entry["message"] for entry in json.loads(newest.out)]
    assert len(last_two) == 2
    argv = ["deployments", "logs", NAME, "--follow", "--limit", "2", "--json", "--interval", "0.2"]
    with following(plane, *argv, "--control-plane", plane.url) as follower:
        assert follower.stdout is not None
        first = [json.loads(follower.stdout.readline())["message"] for _ in range(2)]
        assert first == last_two  # not the log's first line: its newest two
        marker = f"/threads/{uuid.uuid4()}"  # a request the agent server logs
        with httpx.Client(trust_env=False, timeout=30) as server:
            server.get(str(deployed.deployment["source_config"]["custom_url"]) + marker)  # type: ignore[index]
        later = [json.loads(follower.stdout.readline())["message"]]
        while marker not in later[-1]:
            later.append(json.loads(follower.stdout.readline())["message"])
        assert not set(later) & set(first)  # nothing printed twice
        ended_by_ctrl_c(follower)


@pytest.mark.timeout(DEPLOY_TIMEOUT * 2)
def test_a_second_deploy_makes_a_revision_then_redeploy_and_delete(
    plane: LocalControlPlane, deployed: Deployed
) -> None:
    first = str(deployed.deployment["latest_revision_id"])
    (deployed.project / "README.md").write_text("second\n")
    again = agent_tui(
        "deploy", "--name", NAME, "--no-wait", "--json", *where(plane), cwd=deployed.project
    )
    assert again.code == 0, again.err
    answer = json.loads(again.out)
    assert answer["deployment_id"] == deployed.deployment["id"]
    second = answer["revision_id"]
    assert second != first
    wait_deployed(plane, str(deployed.deployment["id"]), second)

    listed = agent_tui("deployments", "revisions", NAME, *where(plane))
    assert listed.code == 0, listed.err
    rows = listed.out.splitlines()
    assert rows[0].split()[:2] == ["REVISION", "STATUS"]
    assert [row.split()[0] for row in rows[1:]] == [second, first]  # newest first

    redeployed = agent_tui("deployments", "redeploy", NAME, first, "--json", *where(plane))
    assert redeployed.code == 0, redeployed.err
    third = json.loads(redeployed.out)["latest_revision_id"]
    assert third not in (first, second)
    wait_deployed(plane, str(deployed.deployment["id"]), third)

    refused = agent_tui("deployments", "delete", NAME, *where(plane))
    assert refused.code == 2
    assert "--force" in refused.err
    deleted = agent_tui("deployments", "delete", NAME, "--force", *where(plane))
    assert deleted.code == 0, deleted.err
    assert f"deleted deployment {NAME}" in deleted.out
    with http(plane) as client:
        assert client.get(f"/v2/deployments/{deployed.deployment['id']}").status_code == 404
    gone = agent_tui("deployments", "revisions", NAME, *where(plane))
    assert gone.code == 1 and f"no deployment named '{NAME}'" in gone.err


@pytest.mark.timeout(DEPLOY_TIMEOUT)
def test_deploy_packs_the_sibling_package_langgraph_json_names_and_its_graph_imports_it(
    plane: LocalControlPlane, tmp_path: Path
) -> None:
    """As the official CLI's archive: the config's folder and `../common` under their
    common parent, `langgraph_config_path` relative to it; nothing else beside them."""
    config = sibling_package_project(tmp_path / "repo")
    ran = agent_tui(
        "deploy",
        "--name",
        "cmd-monorepo",
        "--install-command",
        "npm ci && npm run prepare",
        "--build-command",
        "npm run build",
        "--interval",
        "0.3",
        *where(plane),
        cwd=config.parent,
    )
    assert ran.code == 0, ran.out + ran.err
    assert f"packed {(tmp_path / 'repo').resolve()}" in ran.out
    with http(plane) as client:
        (deployment,) = client.get(
            "/v2/deployments", params={"name_contains": "cmd-monorepo"}
        ).json()["resources"]
        (revision,) = client.get(f"/v2/deployments/{deployment['id']}/revisions").json()[
            "resources"
        ]
        build = client.post(
            f"/v1/projects/{deployment['id']}/revisions/{revision['id']}/build_logs",
            json={"order": "asc", "limit": 1000},
        ).json()["logs"]
    assert deployment["source_config"]["install_command"] == "npm ci && npm run prepare"
    assert deployment["source_config"]["build_command"] == "npm run build"
    said = [entry["message"] for entry in build]
    # Kept, and the build says plainly that it did not run them (JS deployments only).
    assert any(m.startswith("install_command 'npm ci && npm run prepare' not run") for m in said)
    assert any(m.startswith("build_command 'npm run build' not run") for m in said)

    config_path = Path(revision["source_revision_config"]["langgraph_config_path"])
    assert config_path.parts[-2:] == ("app", "langgraph.json")
    unpacked = config_path.parent.parent
    assert (unpacked / "common" / "shared_words" / "__init__.py").is_file()
    assert not (unpacked / "common" / "debug.log").exists()  # common's .gitignore
    assert not (unpacked / "elsewhere").exists()  # named by nothing: never packed
    url = deployment["source_config"]["custom_url"]
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as agent:
        answer = agent.post(
            "/runs/wait", json={"assistant_id": "greeter", "input": {"name": "Ada"}}
        )
    assert answer.status_code == 200, answer.text
    assert answer.json()["answer"] == "hello Ada from common"


def test_deploy_refuses_commands_the_official_cli_refuses(
    plane: LocalControlPlane, tmp_path: Path
) -> None:
    config = sibling_package_project(tmp_path / "repo")
    ran = agent_tui(
        "deploy", "--install-command", "npm ci; curl x | sh", *where(plane), cwd=config.parent
    )
    assert ran.code == 2
    assert "--install-command contains disallowed characters" in ran.err


@pytest.mark.timeout(DEPLOY_TIMEOUT)
def test_deploying_a_broken_project_exits_1_with_the_builds_error(
    plane: LocalControlPlane, tmp_path: Path
) -> None:
    project = copy_weather_project(tmp_path).parent
    graph = project / "agent.py"
    graph.write_text(graph.read_text() + "\nimport module_nobody_has\n")

    failed = agent_tui(
        "deploy", "--name", "cmd-broken", "--interval", "0.3", *where(plane), cwd=project
    )
    assert failed.code == 1, failed.out + failed.err
    assert "BUILD_FAILED" in failed.err
    assert "No module named 'module_nobody_has'" in failed.err
    assert "No module named 'module_nobody_has'" in failed.out  # as the build printed it


def test_deploy_outside_a_project_says_what_to_pass(
    plane: LocalControlPlane, tmp_path: Path
) -> None:
    ran = agent_tui("deploy", *where(plane), cwd=tmp_path)
    assert ran.code == 2
    assert "langgraph.json" in ran.err and "--config" in ran.err


def test_delete_asks_on_a_terminal_and_no_keeps_the_deployment(
    plane: LocalControlPlane, tmp_path: Path
) -> None:
    import pty
    import subprocess
    import sys

    with http(plane) as client:
        kept = client.post(
            "/v2/deployments",
            json={
                "name": "cmd-kept",
                "source": "internal_source",
                "source_config": {},
                "source_revision_config": {},
                "secrets": [],
            },
        ).json()
    terminal, stdin = pty.openpty()
    try:
        asked = subprocess.Popen(
            [sys.executable, "-m", "agent_tui", "deployments", "delete", "cmd-kept", *where(plane)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(terminal, b"n\n")
        out, err = asked.communicate(timeout=60)
    finally:
        os.close(terminal)
        os.close(stdin)
    assert asked.returncode == 0, err
    assert f"Delete deployment cmd-kept ({kept['id']})" in out and "[y/N]" in out
    assert "not deleted" in out
    with http(plane) as client:
        assert client.get(f"/v2/deployments/{kept['id']}").status_code == 200
