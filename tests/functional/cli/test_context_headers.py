"""A context's own headers reach a server agent-tui did not start, behind the project's
own auth (``Authorization: Bearer …``): from an environment variable, a file or the key
store; listings name where a value comes from, never the value; no log holds it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agent_tui.settings.logs import log_file
from agent_tui.settings.secrets_store import key_file
from tests.support import guarded as guarded_support
from tests.support.cli import cli
from tests.support.guarded import REFUSAL, TOKEN

VARIABLE = "GUARD_TOKEN_FOR_TESTS"


guarded = guarded_support.guarded  # the fixture


def logged() -> str:
    return log_file().read_text() if log_file().exists() else ""


def text_of(path: Path) -> str:
    return path.read_text() if path.exists() else ""


async def test_a_header_from_the_environment_lets_the_commands_in(
    guarded: str,
    config_file: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = f"Authorization=Bearer {{env:{VARIABLE}}}"
    code, _, err = await cli(
        capsys, "config", "set-context", "guarded", "--url", guarded, "--header", header
    )
    assert (code, err) == (0, "")
    assert TOKEN not in text_of(config_file)  # the file names the variable only

    # Not set: the command says which variable, before any request.
    monkeypatch.delenv(VARIABLE, raising=False)
    code, out, err = await cli(capsys, "threads", "list", "--context", "guarded")
    assert (code, out) == (2, "")
    assert f"Authorization header from the environment variable {VARIABLE}, which is not set" in err

    monkeypatch.setenv(VARIABLE, TOKEN)
    code, out, err = await cli(
        capsys, "run", "counter", "--input", '{"n": 1}', "--context", "guarded", "--json"
    )
    assert code == 0, err
    code, out, err = await cli(capsys, "threads", "list", "--context", "guarded", "--json")
    assert code == 0, err
    assert len(json.loads(out)) >= 1

    # Listings say where the value comes from, never the value.
    code, out, _ = await cli(capsys, "config", "contexts", "--json")
    row = next(r for r in json.loads(out) if r["name"] == "guarded")
    assert row["headers"] == [f"Authorization (env {VARIABLE})"]
    code, out, _ = await cli(capsys, "config", "contexts")
    assert f"Authorization (env {VARIABLE})" in out
    assert TOKEN not in out and TOKEN not in logged()


async def test_without_the_header_the_projects_auth_refuses(
    guarded: str, config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await cli(capsys, "config", "set-context", "bare", "--url", guarded)
    code, out, err = await cli(capsys, "threads", "list", "--context", "bare")
    assert (code, out) == (1, "")
    assert REFUSAL in err


async def test_a_header_from_a_file_and_one_stored(
    guarded: str,
    config_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(f"Bearer {TOKEN}\n")
    header = f"Authorization={{file:{token_file}}}"
    await cli(capsys, "config", "set-context", "filed", "--url", guarded, "--header", header)
    code, out, err = await cli(capsys, "threads", "list", "--context", "filed", "--json")
    assert code == 0, err
    token_file.unlink()
    code, _, err = await cli(capsys, "threads", "list", "--context", "filed")
    assert code == 2 and f"from {token_file}, which cannot be read" in err

    # Stored: read from stdin, kept in the key file (0600), never in the config file.
    monkeypatch.setattr("sys.stdin", io.StringIO(f"Bearer {TOKEN}\n"))
    code, out, err = await cli(
        capsys, "config", "set-context", "kept", "--url", guarded, "--store-header", "Authorization"
    )
    assert code == 0, err
    assert f"Its Authorization header is stored in {key_file()} (mode 0600)" in out
    assert TOKEN not in text_of(config_file)
    assert oct(os.stat(key_file()).st_mode & 0o777) == "0o600"
    code, out, err = await cli(capsys, "threads", "list", "--context", "kept", "--json")
    assert code == 0, err
    code, out, _ = await cli(capsys, "config", "contexts")
    assert "Authorization (stored)" in out and TOKEN not in out

    # Removed with its context.
    await cli(capsys, "config", "delete-context", "kept")
    assert TOKEN not in text_of(key_file())


async def test_a_header_agent_tui_sets_itself_is_refused_with_what_to_use(
    config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = await cli(
        capsys,
        "config",
        "set-context",
        "x",
        "--url",
        "http://127.0.0.1:9",
        "--header",
        "X-Api-Key={env:K}",
    )
    assert code == 2
    assert "X-Api-Key cannot be set as a header (use api_key_env or --store-api-key)" in err
    code, _, err = await cli(
        capsys,
        "config",
        "set-context",
        "x",
        "--url",
        "http://127.0.0.1:9",
        "--header",
        "Authorization=Bearer {envTOKEN}",
    )
    assert code == 2 and "a brace that is not {env:NAME}, {file:PATH} or {stored}" in err
    assert "[contexts.x]" not in text_of(config_file)
