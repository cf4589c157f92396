"""Headless subcommands against the real server: JSON output, text output, exit codes.

`main([...])` runs in a worker thread (it calls `asyncio.run`, and the tests' own event
loop is running), with stdout and stderr captured.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent_tui.cli.main import main
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread


async def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def counter_thread(client: AgentServerClient, **metadata: Any) -> Thread:
    thread = await client.threads.create(metadata={"graph_id": "counter", **metadata})
    async with client.runs.stream(thread.thread_id, "counter", input={"n": 5}) as run:
        async for _ in run:
            pass
    return await client.threads.get(thread.thread_id)


async def test_threads_list_json_filters_by_metadata_and_status(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tag = uuid.uuid4().hex
    done = await counter_thread(client, tag=tag, n=1)
    waiting = await client.threads.create(
        metadata={"graph_id": "counter", "tag": tag, "n": 2},
        supersteps=[{"updates": [{"values": {"n": 0}, "as_node": "__input__"}]}],
    )
    code, out, err = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--metadata", f"tag={tag}", "--json"
    )
    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert [t["thread_id"] for t in listed] == [waiting.thread_id, done.thread_id]
    assert list(listed[0]) == [
        "thread_id",
        "status",
        "graph_id",
        "metadata",
        "created_at",
        "updated_at",
        "last_message",
    ]
    assert [(t["status"], t["graph_id"], t["metadata"]["n"]) for t in listed] == [
        ("interrupted", "counter", 2),
        ("idle", "counter", 1),
    ]
    # Values are JSON (n=1 is the number 1); filters combine.
    code, out, _ = await cli(
        capsys,
        "threads",
        "list",
        "--url",
        agent_server_url,
        "--metadata",
        f"tag={tag}",
        "--metadata",
        "n=1",
        "--status",
        "idle",
        "--json",
    )
    assert code == 0 and [t["thread_id"] for t in json.loads(out)] == [done.thread_id]

    code, out, _ = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--metadata", f"tag={tag}"
    )
    lines = out.splitlines()
    assert lines[0].split() == [
        "THREAD",
        "ID",
        "STATUS",
        "GRAPH",
        "UPDATED",
        "(UTC)",
        "LAST",
        "MESSAGE",
    ]
    assert lines[1].startswith(f"{waiting.thread_id}  interrupted  counter  ")
    assert lines[2].startswith(f"{done.thread_id}  idle         counter  ")


async def test_history_json_and_text(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = await counter_thread(client)
    code, out, err = await cli(
        capsys, "history", thread.thread_id, "--url", agent_server_url, "--json"
    )
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [(r["step"], r["source"], r["writers"], r["next"]) for r in rows] == [
        (2, "loop", ["dbl"], []),
        (1, "loop", ["inc"], ["dbl"]),
        (0, "loop", ["__start__"], ["inc"]),
        (-1, "input", ["__input__"], ["__start__"]),
    ]
    assert list(rows[0]) == [
        "checkpoint_id",
        "parent_checkpoint_id",
        "step",
        "source",
        "writers",
        "written_keys",
        "writes_source",
        "next",
        "interrupts",
        "created_at",
    ]
    # --limit: the last row shown still knows what wrote it. --url before the command works.
    code, out, _ = await cli(
        capsys, "--url", agent_server_url, "history", thread.thread_id, "--limit", "2", "--json"
    )
    assert code == 0
    assert [(r["step"], r["writers"]) for r in json.loads(out)] == [(2, ["dbl"]), (1, ["inc"])]

    code, out, _ = await cli(capsys, "history", thread.thread_id, "--url", agent_server_url)
    lines = out.splitlines()
    assert lines[0].split() == [
        "STEP",
        "SOURCE",
        "WROTE",
        "NEXT",
        "INTERRUPTS",
        "TIME",
        "(UTC)",
        "CHECKPOINT",
    ]
    assert lines[1].split()[:3] == ["2", "loop", "dbl"]
    assert lines[1].split()[-1] == rows[0]["checkpoint_id"]
    assert lines[2].split()[:4] == ["1", "loop", "inc", "dbl"]
    # Aligned: every row's checkpoint column starts where the header's does.
    column = lines[0].index("CHECKPOINT")
    assert all(line[column:] in {r["checkpoint_id"] for r in rows} for line in lines[1:])


async def test_diff_json_with_full_and_short_ids(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = await counter_thread(client)
    history = await client.threads.get_history(thread.thread_id, limit=10)
    first, last = history[2].checkpoint_id, history[0].checkpoint_id  # steps 0 and 2
    assert first and last
    code, out, err = await cli(
        capsys, "diff", thread.thread_id, first, last[-8:], "--url", agent_server_url, "--json"
    )
    assert (code, err) == (0, "")
    diff = json.loads(out)
    assert diff["a"] == {
        "checkpoint_id": first,
        "step": 0,
        "source": "loop",
        "next": ["inc"],
        "writes": {"__start__": {"n": 5}},
    }
    assert (diff["b"]["checkpoint_id"], diff["b"]["writes"]) == (last, {"dbl": {"n": 12}})
    assert diff["values"] == [
        {
            "kind": "changed",
            "path": ["n"],
            "before": 5,
            "after": 12,
            "index": None,
            "appended": False,
        },
        {
            "kind": "items_added",
            "path": ["items"],
            "before": None,
            "after": [5],
            "index": 0,
            "appended": True,
        },
    ]
    assert diff["next"] == {"a": ["inc"], "b": [], "changed": True}

    code, out, _ = await cli(
        capsys, "diff", thread.thread_id, first, last, "--url", agent_server_url
    )
    assert code == 0
    assert out.splitlines()[3:7] == [
        "values:",
        "  ~ n: 5 → 12",
        "  + items: appended 1 item: [5]",
        'next: ["inc"] → []',
    ]

    code, out, err = await cli(
        capsys, "diff", thread.thread_id, first, "zzzzzzzz", "--url", agent_server_url
    )
    assert (code, out) == (1, "")  # the thread's history said no
    assert (
        err == f"agent-tui: no checkpoint of thread {thread.thread_id} has an id like 'zzzzzzzz'\n"
    )


async def test_export_then_import_prints_the_new_thread(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    thread = await counter_thread(client)
    file = tmp_path / "thread.json"
    code, out, err = await cli(
        capsys, "export", thread.thread_id, "--url", agent_server_url, "-o", str(file)
    )
    assert (code, out) == (0, "")
    assert err == f"exported 4 checkpoints of {thread.thread_id} to {file}\n"
    data = json.loads(file.read_text())
    assert (data["format"], data["version"], len(data["checkpoints"])) == ("agent-tui.thread", 1, 4)

    code, out, err = await cli(capsys, "import", str(file), "--url", agent_server_url)
    assert (code, err) == (0, "")
    new_id = out.strip()
    assert str(uuid.UUID(new_id)) == new_id and new_id != thread.thread_id
    assert (await client.threads.get_state(new_id)).values == {"n": 12, "items": [5]}

    code, out, err = await cli(capsys, "import", str(file), "--url", agent_server_url, "--json")
    result = json.loads(out)
    assert (code, err) == (0, "")
    assert (result["status"], result["checkpoints"], result["checked"], result["differences"]) == (
        "idle",
        4,
        True,
        [],
    )


async def test_errors_are_messages_with_exit_codes(
    agent_server_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, free_port: int
) -> None:
    missing = str(uuid.uuid4())
    code, out, err = await cli(capsys, "history", missing, "--url", agent_server_url)
    assert (code, out) == (1, "")
    assert err.startswith(f"agent-tui: Not found: Thread with ID {missing} not found")
    assert "Traceback" not in err

    code, _, err = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--status", "asleep"
    )
    assert code == 2
    assert err == "agent-tui: --status: 'asleep' is not one of idle, busy, interrupted, error\n"
    code, _, err = await cli(capsys, "threads", "list", "--url", agent_server_url, "--limit", "0")
    assert (code, err) == (2, "agent-tui: --limit: must be between 1 and 1000, got 0\n")

    code, _, err = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--metadata", "novalue"
    )
    assert (code, err) == (2, "agent-tui: --metadata: expected KEY=VALUE, got 'novalue'\n")

    # No --url and no saved context: no local server runs for this folder's project.
    code, _, err = await cli(capsys, "history", missing)
    assert code == 2 and err.startswith("agent-tui: no local agent server runs for ")
    assert "start one with `agent-tui serve`" in err

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "agent-tui.thread", "version": 9}))
    code, _, err = await cli(capsys, "import", str(bad), "--url", agent_server_url)
    assert (code, err) == (
        1,  # the file said no
        f"agent-tui: {bad}: unsupported export version 9: this agent-tui reads version 1\n",
    )
    code, _, err = await cli(
        capsys, "import", str(tmp_path / "none.json"), "--url", agent_server_url
    )
    assert (code, err) == (
        1,
        f"agent-tui: cannot read {tmp_path / 'none.json'}: No such file or directory\n",
    )

    code, _, err = await cli(capsys, "threads", "list", "--url", f"http://127.0.0.1:{free_port}")
    assert code == 1 and err.startswith("agent-tui: Cannot reach the server")


def test_exit_code_and_clean_stderr_from_a_real_process(agent_server_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agent_tui", "history", "not-a-uuid", "--url", agent_server_url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("agent-tui: ") and "must be a UUID" in result.stderr
    assert "Traceback" not in result.stderr


async def test_server_text_in_text_output_is_inert(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tag = uuid.uuid4().hex
    hostile = "\x1b[2J\x1b]0;pwned\x07hi"
    thread = await client.threads.create(metadata={"graph_id": "chat", "tag": tag})
    async with client.runs.stream(
        thread.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": hostile}]},
        context={"token_delay_ms": 0},
    ) as run:
        async for _ in run:
            pass
    await client.threads.create(metadata={"graph_id": f"\x1b[31m{tag}", "tag": tag})
    code, out, _ = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--metadata", f"tag={tag}"
    )
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert lines[1].split()[2] == tag  # the colour sequence is gone
    assert lines[2].endswith("ai: You said: hi")
    history = await client.threads.get_history(thread.thread_id, limit=10)
    first, last = history[-1].checkpoint_id, history[0].checkpoint_id
    assert first and last
    code, out, _ = await cli(
        capsys, "diff", thread.thread_id, first, last, "--url", agent_server_url
    )
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert '+ messages: human "hi"' in out
    # JSON keeps the exact text, escaped by JSON itself (still inert on a terminal).
    code, out, _ = await cli(
        capsys, "threads", "list", "--url", agent_server_url, "--metadata", f"tag={tag}", "--json"
    )
    assert "\x1b" not in out
    assert json.loads(out)[1]["last_message"]["content"] == f"You said: {hostile}"


async def test_a_megabyte_value_is_cut_in_a_table_and_whole_in_json(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tag = uuid.uuid4().hex
    graph = "g" * 1_000_000
    await client.threads.create(metadata={"graph_id": graph, "tag": tag})
    flags = ("--url", agent_server_url, "--metadata", f"tag={tag}")
    code, out, err = await cli(capsys, "threads", "list", *flags)
    assert code == 0, err
    [header, row] = out.splitlines()
    assert "GRAPH" in header and len(row) < 300 and "ggg…" in row
    assert err == (
        "agent-tui: 1 value was cut to 120 characters (…); --json prints every value whole\n"
    )
    code, out, err = await cli(capsys, "threads", "list", *flags, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)[0]["graph_id"] == graph
