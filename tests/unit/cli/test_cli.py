"""The command line: answers that must come fast and without starting anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui import __version__
from agent_tui.cli.main import build_parser, main
from agent_tui.settings.target import api_key_from_env, normalize_url


def run_cli(*args: str, home: Path, extra: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, *([extra] if extra else []), "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_version_prints_version(tmp_path: Path) -> None:
    result = run_cli("--version", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"agent-tui {__version__}"


def test_version_imports_neither_textual_nor_the_server(tmp_path: Path) -> None:
    # -X importtime lists every module imported, on stderr.
    result = run_cli("--version", home=tmp_path, extra="-Ximporttime")
    assert result.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "agent_tui.cli.main" in imported  # the listing was parsed
    for heavy in ("textual", "rich", "httpx", "langgraph", "langgraph_api", "pydantic"):
        assert heavy not in imported, f"--version imported {heavy}"


def test_help_lists_flags_and_commands(tmp_path: Path) -> None:
    result = run_cli("--help", home=tmp_path, extra="-Ximporttime")
    assert result.returncode == 0
    for word in ("--url", "--api-key", "--readonly", "--version", "config", "LANGSMITH_API_KEY"):
        assert word in result.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "textual" not in imported


def test_config_path_prints_the_config_file(tmp_path: Path) -> None:
    result = run_cli("config", "path", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == tmp_path / "config" / "config.toml"


def test_config_without_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["config"])
    assert exit_info.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_api_key_without_url_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--api-key", "k"])
    assert exit_info.value.code == 2
    assert "--api-key needs --url" in capsys.readouterr().err


def test_a_missing_value_is_reported_with_the_usage_of_the_command_it_follows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (The TUI's flags are first tried alone, without the commands: that must not change
    # what a mistake after a command says.)
    with pytest.raises(SystemExit) as exit_info:
        main(["threads", "list", "--url"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "agent-tui threads list: error: argument --url: expected one argument" in err


def test_bad_url_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--url", "ftp://example.com"])
    assert "not an http(s) URL" in capsys.readouterr().err


def test_parser_accepts_the_tui_flags() -> None:
    args = build_parser().parse_args(["--url", "http://x:1", "--api-key", "k", "--readonly"])
    assert (args.url, args.api_key, args.readonly) == ("http://x:1", "k", True)


@pytest.mark.parametrize("command", [[], ["serve"]], ids=["agent-tui", "agent-tui serve"])
def test_live_reload_is_on_unless_no_reload(command: list[str]) -> None:
    assert build_parser().parse_args(command).reload is True
    assert build_parser().parse_args([*command, "--no-reload"]).reload is False


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("localhost:2024", "http://localhost:2024"),
        ("http://127.0.0.1:2024/", "http://127.0.0.1:2024"),
        (" https://my.deployment.example/ ", "https://my.deployment.example"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_api_key_env_order() -> None:
    env = {"LANGCHAIN_API_KEY": "c", "LANGGRAPH_API_KEY": "g", "LANGSMITH_API_KEY": ""}
    assert api_key_from_env(env) == "g"
    assert api_key_from_env({**env, "LANGSMITH_API_KEY": "s"}) == "s"
    assert api_key_from_env({}) is None


def test_url_target_takes_the_key_from_the_flag_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_tui.cli.main import _target_from_args
    from agent_tui.settings.target import LocalServer, RemoteServer

    monkeypatch.setenv("LANGGRAPH_API_KEY", "from-env")
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    parser = build_parser()
    flagged = _target_from_args(parser.parse_args(["--url", "http://x:1", "--api-key", "k"]))
    assert flagged == RemoteServer("http://x:1", api_key="k")
    from_env = _target_from_args(parser.parse_args(["--url", "http://x:1"]))
    assert from_env == RemoteServer("http://x:1", api_key="from-env")
    assert "from-env" not in repr(from_env)  # keys never reach a log line through a repr
    assert _target_from_args(parser.parse_args([])) == LocalServer()
