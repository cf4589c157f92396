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
