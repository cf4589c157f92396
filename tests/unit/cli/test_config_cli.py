"""`agent-tui config …` and `--context`: contexts managed from the command line."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.cli.main import _context_from_args, _target_from_args, build_parser, main
from agent_tui.settings.target import LocalServer, RemoteServer

SECRET = "lsv2_sk_feedfacecafe"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh AGENT_TUI_HOME and an environment without keys or agent-tui settings."""
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    for name in [*os.environ]:
        if name.startswith(("LANGSMITH_", "LANGGRAPH_", "LANGCHAIN_")) or name in (
            "AGENT_TUI_CONTEXT",
            "AGENT_TUI_READONLY",
            "AGENT_TUI_CONFIG",
        ):
            monkeypatch.delenv(name)
    return tmp_path


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_use_and_delete_contexts(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(
        "config", "set-context", "staging", "--url", "staging.example.com",
        "--api-key-env", "STAGING_KEY", "--workspace-id", "ws-1", "--readonly",
        capsys=capsys,
    )  # fmt: skip
    assert code == 0
    assert out == f"Added context 'staging' in {home / 'config' / 'config.toml'}\n"

    monkeypatch.setattr(sys, "stdin", io.StringIO(SECRET + "\n"))
    code, out, _ = run(
        "config", "set-context", "dev", "--url", "http://127.0.0.1:2024", "--store-api-key",
        capsys=capsys,
    )  # fmt: skip
    assert code == 0
    assert f"Its API key is stored in {home / 'data' / 'api-keys.json'} (mode 0600)" in out
    assert SECRET not in out
    assert stat.S_IMODE((home / "data" / "api-keys.json").stat().st_mode) == 0o600

    code, out, _ = run("config", "use-context", "staging", capsys=capsys)
    assert (code, out) == (0, "agent-tui now opens with the context 'staging'\n")

    code, out, _ = run("config", "contexts", capsys=capsys)
    assert code == 0
    assert out.splitlines() == [
        "CURRENT  NAME     AGENT SERVER                      API KEY                    "
        "WORKSPACE  READ-ONLY  HEADERS",
        "         local    (embedded, started by agent-tui)  none",
        "*        staging  http://staging.example.com        env STAGING_KEY (not set)  "
        "ws-1       yes",
        "         dev      http://127.0.0.1:2024             stored",
    ]

    code, out, _ = run("config", "contexts", "--json", capsys=capsys)
    listed = json.loads(out)
    assert [(c["name"], c["current"], c["key_source"]) for c in listed] == [
        ("local", False, "none"),
        ("staging", True, "env STAGING_KEY (not set)"),
        ("dev", False, "stored"),
    ]
    assert listed[1]["readonly"] is True and listed[1]["workspace_id"] == "ws-1"

    code, out, _ = run("config", "delete-context", "dev", capsys=capsys)
    assert code == 0 and out.startswith("Deleted context 'dev'")
    assert json.loads((home / "data" / "api-keys.json").read_text())["keys"] == {}

    code, out, _ = run("config", "delete-context", "staging", capsys=capsys)
    assert out.endswith("The current context is now 'local'\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["set-context", "new"], "agent-tui: the new context 'new' needs --url\n"),
        (
            ["set-context", "p", "--url", "ftp://x"],
            "contexts.p.agent_server_url: not an http(s) URL: 'ftp://x'\n",
        ),
        (["use-context", "nope"], "no context named 'nope' (known: local)\n"),
        (["delete-context", "local"], "'local' is the built-in context of the embedded server"),
    ],
)
def test_mistakes_are_explained(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run("config", *argv, capsys=capsys)
    assert code == 2
    assert out == ""
    assert message in err


def test_store_api_key_with_empty_input_changes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    code, _, err = run("config", "set-context", "p", "--url", "http://p", "--store-api-key",
                       capsys=capsys)  # fmt: skip
    assert code == 2 and "no API key given" in err
    assert not (home / "config" / "config.toml").exists()


def test_the_key_is_never_an_argument() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["config", "set-context", "p", "--api-key", SECRET])


def test_a_bad_config_file_is_reported_without_a_traceback(home: Path) -> None:
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[contexts.p]\nagent_server_url = 'http://p'\nreadonly = 'yes'\n")
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    for argv in (["config", "contexts"], []):  # [] would open the TUI on a good config
        result = subprocess.run(
            [sys.executable, "-m", "agent_tui", *argv],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip
        assert result.returncode == 2
        assert result.stderr == (
            f'agent-tui: {config}: contexts.p.readonly: expected true or false, got "yes"\n'
        )


def test_context_flag_builds_the_context_target(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run("config", "set-context", "p", "--url", "http://p:1", "--api-key-env", "P_KEY",
        "--workspace-id", "ws", capsys=capsys)  # fmt: skip
    monkeypatch.setenv("P_KEY", SECRET)
    parser = build_parser()
    target = _target_from_args(parser.parse_args(["--context", "p"]))
    assert target == RemoteServer("http://p:1", api_key=SECRET, workspace_id="ws")
    assert _target_from_args(parser.parse_args([])) == LocalServer()
    monkeypatch.setenv("AGENT_TUI_CONTEXT", "p")
    assert _context_from_args(parser.parse_args([])).name == "p"
    assert _context_from_args(parser.parse_args(["--context", "local"])).name == "local"
    url = _context_from_args(parser.parse_args(["--url", "http://u:2"]))
    assert (url.name, url.target) == ("http://u:2", RemoteServer("http://u:2"))


def test_url_and_context_are_alternatives(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--url", "http://x", "--context", "p"])
    assert "--url and --context are alternatives" in capsys.readouterr().err


def test_config_path_follows_agent_tui_config(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(home / "elsewhere.toml"))
    assert run("config", "path", capsys=capsys)[1] == f"{home / 'elsewhere.toml'}\n"
    run("config", "set-context", "p", "--url", "http://p", capsys=capsys)
    assert "[contexts.p]" in (home / "elsewhere.toml").read_text()


def test_config_schema_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from agent_tui.settings.config_schema import config_json_schema

    code, out, _ = run("config", "schema", capsys=capsys)
    assert code == 0
    assert json.loads(out) == config_json_schema()


def test_help_names_the_context_flag_and_variables(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for word in (
        "--context",
        "AGENT_TUI_CONTEXT",
        "AGENT_TUI_READONLY",
        "AGENT_TUI_CONFIG",
        "LANGSMITH_WORKSPACE_ID",
        "set-context",
    ):
        assert word in out


def test_a_key_for_the_local_context_is_refused(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_tui.cli.main import _run_tui

    code = _run_tui(build_parser().parse_args(["--context", "local", "--api-key", SECRET]))
    assert code == 2
    err = capsys.readouterr().err
    assert err == "agent-tui: the local context runs without an API key: --api-key needs --url\n"


def test_a_context_broken_by_hand_can_still_be_deleted(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'current_context = "broken"\n'
        "[contexts.broken]\n"
        'agent_server_url = "http://127.0.0.1:99999"\n'
        "[contexts.other]\n"
        "agent_server_url = 7\n"
    )
    # Every other command says what is wrong with the file, and deleting another
    # context does not pretend the file is fine.
    code, _, err = run("config", "contexts", capsys=capsys)
    assert code == 2 and "contexts.broken.agent_server_url: not a usable URL" in err
    code, _, err = run("config", "delete-context", "other", capsys=capsys)
    assert code == 2 and "contexts.broken.agent_server_url" in err

    config.write_text(config.read_text().replace("agent_server_url = 7", 'agent_server_url = "h"'))
    code, out, err = run("config", "delete-context", "broken", capsys=capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"Deleted context 'broken' from {config}",
        "The current context is now 'local'",
    ]
    code, out, _ = run("config", "contexts", capsys=capsys)
    assert code == 0 and "broken" not in out and "other" in out
