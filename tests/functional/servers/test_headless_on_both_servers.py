"""Every headless subcommand that talks to an agent server, on langgraph-api and on Aegra
(PostgreSQL + Redis), with the same keys and the same answers (issue 22).

Where a server does not offer something (Aegra: thread import), the command says so in
one line, exits 1 and leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from tests.support.cli import cli
from tests.support.servers import Server, server

__all__ = ["server"]  # the fixture, run once per server


def thread_of(output: str) -> str:
    """The thread id `agent-tui run` names first (`thread <id> (new thread …)`)."""
    line = next(line for line in output.splitlines() if line.startswith("thread "))
    return line.split()[1]


async def test_run_pause_resume_and_continue(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    url = server.url
    code, out, err = await cli(capsys, "run", "chat", "--message", "hello", "--url", url)
    assert code == 0, err
    assert "You said: hello" in out + err

    # interrupt(): paused (exit 3), never "cancelled"; the answers go in by id.
    code, out, err = await cli(capsys, "run", "questions", "--input", "{}", "--url", url, "--json")
    assert code == 3, err
    events = [json.loads(line) for line in out.splitlines()]
    thread_id = events[0]["thread_id"]
    outcome = events[-1]
    assert outcome["event"] == "outcome" and outcome["data"]["state"] == "interrupted"
    ids = [item["id"] for item in outcome["data"]["interrupts"]]
    assert len(ids) == 2
    answers = json.dumps(dict(zip(ids, ["x", "y"], strict=True)))
    code, out, err = await cli(
        capsys, "run", "questions", "--thread", thread_id, "--resume", answers, "--url", url
    )
    assert code == 0, err
    assert "a=x" in out + err and "b=y" in out + err

    # A breakpoint: paused before the node (exit 3), then continued with no input.
    code, out, err = await cli(
        capsys, "run", "chat", "--message", "hi", "--interrupt-before", "agent", "--url", url
    )
    assert code == 3, err
    assert "paused before agent" in out + err
    thread_id = thread_of(out)
    code, out, err = await cli(capsys, "run", "chat", "--thread", thread_id, "--url", url)
    assert code == 0, err
    assert "You said: hi" in out + err


async def test_threads_history_diff_and_export(
    server: Server, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kind, url = server.kind, server.url
    code, out, err = await cli(capsys, "run", "chat", "--message", "history please", "--url", url)
    assert code == 0, err
    thread_id = thread_of(out)

    code, out, err = await cli(capsys, "threads", "list", "--url", url, "--json")
    assert code == 0, err
    assert thread_id in [row["thread_id"] for row in json.loads(out)]

    code, out, err = await cli(capsys, "history", thread_id, "--url", url, "--json")
    assert code == 0, err
    rows = json.loads(out)
    steps = [row["step"] for row in rows]
    assert steps[-1] == -1 and len(steps) >= 3

    newest, oldest = rows[0]["checkpoint_id"], rows[-1]["checkpoint_id"]
    code, out, err = await cli(capsys, "diff", thread_id, oldest, newest, "--url", url, "--json")
    assert code == 0, err
    assert "You said: history please" in out

    exported = tmp_path / "thread.json"
    code, _, err = await cli(capsys, "export", thread_id, "-o", str(exported), "--url", url)
    assert code == 0, err
    assert json.loads(exported.read_text())["source"]["thread_id"] == thread_id

    async with AgentServerClient(url) as client:
        before = {t.thread_id for t in await client.threads.search(limit=1000)}
    code, out, err = await cli(capsys, "import", str(exported), "--url", url)
    async with AgentServerClient(url) as client:
        after = {t.thread_id for t in await client.threads.search(limit=1000)}
    if kind == "aegra":  # it ignores a thread's supersteps: said, and nothing left behind
        assert code == 1
        assert "does not replay a thread's history" in err and "nothing was imported" in err
        assert "Traceback" not in err
        assert after == before
    else:
        assert code == 0, err
        assert after - before == {out.strip()}


async def test_store_and_crons(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    url = server.url
    code, _, err = await cli(
        capsys, "store", "put", "notes.both", "k1", "--value", '{"a": 1}', "--url", url
    )
    assert code == 0, err
    code, out, err = await cli(capsys, "store", "get", "notes.both", "k1", "--url", url, "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == {"a": 1}
    code, out, err = await cli(capsys, "store", "search", "notes", "--url", url, "--json")
    assert code == 0, err
    assert [item["key"] for item in json.loads(out)] == ["k1"]
    code, _, err = await cli(capsys, "store", "rm", "notes.both", "k1", "--url", url)
    assert code == 0, err

    code, out, err = await cli(
        capsys,
        "crons",
        "create",
        "chat",
        "--schedule",
        "0 9 * * 1-5",
        "--message",
        "hi",
        "--url",
        url,
    )
    assert code == 0, err
    assert "Traceback" not in err
    cron_id = out.strip()
    code, out, err = await cli(capsys, "crons", "list", "--url", url, "--json")
    assert code == 0, err
    crons = [row for row in json.loads(out) if row["cron_id"] == cron_id]
    assert len(crons) == 1 and crons[0]["schedule"] == "0 9 * * 1-5"  # made once, not twice
    code, _, err = await cli(capsys, "crons", "rm", cron_id, "--url", url)
    assert code == 0, err
