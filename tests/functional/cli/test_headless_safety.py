"""Headless commands as a careful user (and a careless script) meets them: read-only
sessions, exit codes, short checkpoint ids, closed pipes, bad URLs, usage lines.

Against the session's real agent server and a local control plane.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from agent_tui.cli.main import build_parser, main
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread
from agent_tui.local.control_plane import LocalControlPlane


async def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def counter_thread(client: AgentServerClient) -> Thread:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    async with client.runs.stream(thread.thread_id, "counter", input={"n": 5}) as run:
        async for _ in run:
            pass
    return thread


async def imports_of(client: AgentServerClient, source_thread: str) -> list[Thread]:
    return await client.threads.search(metadata={"imported_from": source_thread})


async def test_import_is_refused_in_every_kind_of_read_only_session(
    client: AgentServerClient,
    agent_server_url: str,
    config_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    thread = await counter_thread(client)
    file = tmp_path / "thread.json"
    code, _, err = await cli(
        capsys, "export", thread.thread_id, "--url", agent_server_url, "-o", str(file)
    )
    assert code == 0, err
    await asyncio.to_thread(
        config_file.write_text,
        f'[contexts.prod]\nagent_server_url = "{agent_server_url}"\nreadonly = true\n'
        f'[contexts.dev]\nagent_server_url = "{agent_server_url}"\n',
    )
    url = ["--url", agent_server_url]
    refusals = [
        (["import", str(file), *url, "--readonly"], "--readonly is set"),
        (["--readonly", "import", str(file), *url], "--readonly is set"),
        (["import", str(file), "--context", "prod"], "the context 'prod' is read-only"),
    ]
    for argv, reason in refusals:
        code, out, err = await cli(capsys, *argv)
        assert (code, out) == (2, "")
        assert err == f"agent-tui: read-only mode: cannot import a thread ({reason})\n"
    monkeypatch.setenv("AGENT_TUI_READONLY", "1")
    for argv in (["import", str(file), *url], ["import", str(file), "--context", "dev"]):
        code, out, err = await cli(capsys, *argv)
        assert (code, out) == (2, "")
        expected = "agent-tui: read-only mode: cannot import a thread (AGENT_TUI_READONLY is set)\n"
        assert err == expected
    assert await imports_of(client, thread.thread_id) == []

    # Reading is fine in a read-only session, and --readonly goes after any command.
    for argv in (
        # The newest thread only: others on the shared server may hold long values,
        # which the list says it cut (on stderr).
        ["threads", "list", "--limit", "1", *url, "--readonly"],
        ["history", thread.thread_id, *url, "--readonly"],
        ["export", thread.thread_id, *url, "-o", "-", "--readonly"],
    ):
        code, _, err = await cli(capsys, *argv)
        assert (code, err) == (0, "")
    monkeypatch.delenv("AGENT_TUI_READONLY")
    code, out, _ = await cli(capsys, "import", str(file), "--context", "dev")
    assert code == 0
    assert [t.thread_id for t in await imports_of(client, thread.thread_id)] == [out.strip()]


async def test_exit_codes_say_whether_the_server_a_file_or_the_command_line_said_no(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    url = ["--url", agent_server_url]
    thread = await counter_thread(client)
    history = await client.threads.get_history(thread.thread_id, limit=10)
    some = history[0].checkpoint_id
    assert some is not None

    # 1: a file or the server said no.
    code, out, err = await cli(capsys, "import", str(tmp_path / "none.json"), *url)
    assert (code, out) == (1, "")
    assert err == f"agent-tui: cannot read {tmp_path / 'none.json'}: No such file or directory\n"
    not_json = tmp_path / "notes.txt"
    not_json.write_text("hello")
    code, _, err = await cli(capsys, "import", str(not_json), *url)
    assert code == 1 and err.startswith(f"agent-tui: {not_json}: not valid JSON")
    code, _, err = await cli(capsys, "diff", thread.thread_id, some, "zzzzzzzz", *url)
    assert code == 1
    assert err == (
        f"agent-tui: no checkpoint of thread {thread.thread_id} has an id like 'zzzzzzzz'\n"
    )
    code, _, err = await cli(
        capsys, "export", thread.thread_id, *url, "-o", "-", "--checkpoint", "zzzzzzzz"
    )
    assert code == 1 and "has an id like 'zzzzzzzz'" in err

    # 2: the command line is wrong.
    code, _, err = await cli(capsys, "diff", thread.thread_id, some, "abc", *url)
    assert code == 2 and "give at least 4 characters" in err
    code, _, err = await cli(capsys, "history", thread.thread_id, *url, "--limit", "-1")
    assert code == 2 and "--limit" in err
    with pytest.raises(SystemExit) as exited:
        main(["threads", "list", "--no-such-flag"])
    assert exited.value.code == 2
    # The mistake comes with the usage of the command it was made in.
    err = capsys.readouterr().err
    assert err.startswith("usage: agent-tui threads list [-h]")
    assert err.endswith("agent-tui threads list: error: unrecognized arguments: --no-such-flag\n")


async def test_export_takes_the_short_checkpoint_ids_diff_takes(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    thread = await counter_thread(client)
    history = await client.threads.get_history(thread.thread_id, limit=10)
    step_one = history[1].checkpoint_id  # inc wrote it; dbl came after
    assert step_one is not None and history[1].step == 1
    for short in (step_one[-8:], step_one[:13]):
        code, out, err = await cli(
            capsys,
            "export",
            thread.thread_id,
            "--url",
            agent_server_url,
            "-o",
            "-",
            "--checkpoint",
            short,
        )
        assert (code, err) == (0, "")
        exported = json.loads(out)
        assert [c["step"] for c in exported["checkpoints"]] == [-1, 0, 1]
        assert exported["checkpoints"][-1]["checkpoint_id"] == step_one


def test_a_reader_that_stops_reading_ends_the_command_quietly(agent_server_url: str) -> None:
    # `agent-tui threads list --json | head -0`: the pipe is closed before anything is
    # written (Python takes far longer to start than the close), so every write fails.
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "threads", "list", "--json", "--url", agent_server_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 141  # 128 + SIGPIPE, as a shell reports for `cat`
    assert err == ""


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        (
            "http://127.0.0.1:99999",
            "not a usable URL: 'http://127.0.0.1:99999' (the port must be a number from 1 to 65535)",
        ),
        (
            "http://h:x",
            "not a usable URL: 'http://h:x' (the port must be a number from 1 to 65535)",
        ),
        ("javascript:alert(1)", "not an http(s) URL: 'javascript:alert(1)'"),
    ],
)
def test_bad_urls_are_refused_where_they_come_in(
    url: str,
    problem: str,
    config_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["config", "set-context", "x", "--url", url]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"agent-tui: {config_file}: contexts.x.agent_server_url: {problem}\n"
    assert not config_file.exists()  # nothing was written

    for argv in (
        ["threads", "list", "--url", url],
        ["--url", url, "history", str(uuid.uuid4())],
        ["deployments", "list", "--control-plane", url, "--control-plane-key", "k"],
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert problem in err and "Traceback" not in err

    # A config file edited by hand: the file and the key are named, then nothing runs.
    config_file.write_text(f'[contexts.x]\nagent_server_url = "{url}"\n')
    assert main(["threads", "list", "--context", "x"]) == 2
    err = capsys.readouterr().err
    assert err == f"agent-tui: {config_file}: contexts.x.agent_server_url: {problem}\n"


def test_the_app_refuses_a_bad_url_before_it_starts(tmp_path: Path, config_file: Path) -> None:
    config_file.write_text('[contexts.x]\nagent_server_url = "http://127.0.0.1:99999"\n')
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    for argv in (["--context", "x"], ["--url", "http://127.0.0.1:99999"]):
        result = subprocess.run(
            [sys.executable, "-m", "agent_tui", *argv],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2
        assert result.stdout == ""
        assert "the port must be a number from 1 to 65535" in result.stderr
        assert "Traceback" not in result.stderr and "TaskGroup" not in result.stderr


def test_every_subcommand_has_its_own_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    def commands(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
        found = [path]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += commands(sub, [*path, name])
        return found

    paths = commands(build_parser(), [])[1:]
    assert ["config", "set-context"] in paths and ["deployments", "watch"] in paths
    for path in paths:
        with pytest.raises(SystemExit) as exited:
            main([*path, "--help"])
        assert exited.value.code == 0
        usage = capsys.readouterr().out.split("\n\n")[0]
        assert usage.startswith(f"usage: agent-tui {' '.join(path)} "), usage
        assert "--version" not in usage and "COMMAND ...\n" not in usage


def test_deployments_list_json_masks_secret_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = f"sk-{uuid.uuid4().hex}"
    with LocalControlPlane(tmp_path / "cp") as plane:
        answer = httpx.post(
            f"{plane.url}/v2/deployments",
            headers={"X-Api-Key": plane.api_key},
            json={
                "name": "with-secrets",
                "source": "internal_source",
                "source_config": {},
                "source_revision_config": {"langgraph_config_path": str(tmp_path / "none.json")},
                "secrets": [{"name": "OPENAI_API_KEY", "value": secret}],
            },
            trust_env=False,
        )
        assert answer.status_code == 201, answer.text
        where = ["--control-plane", plane.url, "--control-plane-key", plane.api_key]
        assert main(["deployments", "list", "--json", *where]) == 0
    out = capsys.readouterr().out
    assert secret not in out
    [listed] = json.loads(out)
    assert listed["name"] == "with-secrets"
    assert listed["secrets"] == [{"name": "OPENAI_API_KEY", "value": "••••"}]
