"""`agent-tui deployments list|watch` against a local control plane."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from agent_tui.cli.main import main
from agent_tui.local.control_plane import LocalControlPlane


def test_list_and_watch_a_failing_revision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LocalControlPlane(tmp_path / "cp") as plane:
        created = httpx.post(
            f"{plane.url}/v2/deployments",
            headers={"X-Api-Key": plane.api_key},
            json={
                "name": "cli-demo",
                "source": "internal_source",
                "source_config": {},
                "source_revision_config": {"langgraph_config_path": str(tmp_path / "none.json")},
                "secrets": [],
            },
            trust_env=False,
        ).json()
        where = ["--control-plane", plane.url, "--control-plane-key", plane.api_key]

        assert main(["deployments", "list", "--json", *where]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert [d["id"] for d in listed] == [created["id"]]

        code = main(["deployments", "watch", created["id"], "--interval", "0.1", *where])
        out = capsys.readouterr().out
        assert code == 1
        assert "BUILD_FAILED" in out and "no such file" in out

        assert main(["deployments", "list", *where]) == 0
        table = capsys.readouterr().out
        assert table.splitlines()[0].split()[:2] == ["NAME", "STATUS"]
        assert "cli-demo" in table


def test_without_a_control_plane_it_says_what_to_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deployments", "list", "--control-plane-key", "k"]) == 2
    assert "--control-plane" in capsys.readouterr().err


def test_without_a_key_it_says_how_to_pass_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_TUI_CONTROL_PLANE_KEY", raising=False)
    with LocalControlPlane(tmp_path / "cp") as plane:
        assert main(["deployments", "list", "--control-plane", plane.url]) == 1
    err = capsys.readouterr().err
    assert "Missing credentials" in err  # the control plane's own words
    assert "pass --control-plane-key KEY" in err and "api-key file" in err
    assert plane.api_key not in err


def test_serve_on_any_free_port_says_the_url_that_answers(tmp_path: Path) -> None:
    import os
    import re
    import signal
    import subprocess
    import sys

    data = tmp_path / "cp"
    argv = [sys.executable, "-m", "agent_tui", "control-plane", "serve", "--data-dir", str(data)]
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    env.pop("AGENT_TUI_CONTROL_PLANE_KEY", None)
    process = subprocess.Popen([*argv, "--port", "0"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        found = re.match(r"local control plane on (http://127\.0\.0\.1:(\d+)) ", first)
        assert found and found.group(2) != "0", first
        url, port = found.group(1), found.group(2)
        key = (data / "api-key").read_text().strip()
        answer = httpx.get(
            f"{url}/v2/deployments", headers={"X-Api-Key": key}, trust_env=False, timeout=30
        )
        assert answer.status_code == 200
        # The same folder again: one control plane per data folder, named.
        again = subprocess.run(
            [*argv, "--port", "0"], env=env, capture_output=True, text=True, timeout=60
        )
        assert again.returncode == 1
        assert again.stderr == (
            f"agent-tui: a local control plane for {data} already runs at {url} "
            f"(process {process.pid})\n"
        )
        # The same port for another folder: a message, not a traceback.
        other = [*argv[:-1], str(tmp_path / "other")]
        busy = subprocess.run(
            [*other, "--port", port], env=env, capture_output=True, text=True, timeout=60
        )
        assert busy.returncode == 1
        assert busy.stderr.startswith(f"agent-tui: cannot listen on 127.0.0.1:{port}: ")
        assert "Traceback" not in busy.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        # uvicorn stops gracefully, then ends by the signal it got, as a shell expects.
        assert process.wait(30) in (0, -signal.SIGTERM)
