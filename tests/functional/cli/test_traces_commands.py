"""`agent-tui traces serve | list | show`: the collector alone, and the traces it keeps,
read as a user reads them (text that cannot drive the terminal, or JSON)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from langsmith import traceable, tracing_context

from agent_tui.local.trace_collector import TraceCollector
from tests.support.cli import cli
from tests.support.traces import wait_until

AGENT_TUI = [sys.executable, "-m", "agent_tui"]
HOSTILE_NAME = "\x1b[2J\x1b]0;pwned\x07[bold]model[/]"


def send_a_trace(client_url: str, api_key: str, thread_id: str) -> None:
    import langsmith

    client = langsmith.Client(api_url=client_url, api_key=api_key)
    meta = {"thread_id": thread_id, "ls_model_name": "gpt-cli", "ls_provider": "openai"}

    @traceable(run_type="llm", name=HOSTILE_NAME, metadata={**meta, "langgraph_node": "agent"})
    def model(messages: list[dict[str, str]]) -> dict[str, str]:
        return {"answer": "\x1b[31mred\x1b[0m"}

    @traceable(name="graph", metadata=meta)
    def graph(question: str) -> None:
        model([{"role": "user", "content": question}])

    with tracing_context(enabled=True, client=client):
        graph("hello \x1b[5mblink")
    client.flush()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "traces"
    with TraceCollector(folder) as collector:
        send_a_trace(collector.url, collector.api_key, "thread-a")
        send_a_trace(collector.url, collector.api_key, "thread-b")
    return folder


async def test_list_shows_each_trace_safely(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await cli(capsys, "traces", "list", "--data-dir", str(folder))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["TRACE", "STARTED", "(UTC)"]
    assert len(lines) == 3 and all("graph" in line and "1/0" in line for line in lines[1:])
    assert all("not reported" in line and "0→0" not in line for line in lines[1:])

    code, out, _ = await cli(
        capsys, "traces", "list", "--data-dir", str(folder), "--thread", "thread-b", "--json"
    )
    (trace,) = json.loads(out)
    assert (trace["thread_id"], trace["model_calls"], trace["status"]) == ("thread-b", 1, "success")
    assert (trace["input_tokens"], trace["output_tokens"]) == (None, None)

    code, out, _ = await cli(
        capsys, "traces", "list", "--data-dir", str(folder), "--run", trace["trace_id"], "--json"
    )
    assert [t["trace_id"] for t in json.loads(out)] == [trace["trace_id"]]


async def test_show_prints_the_tree_and_each_model_call(
    folder: Path, capsys: pytest.CaptureFixture[str], config_file: Path
) -> None:
    _, out, _ = await cli(capsys, "traces", "list", "--data-dir", str(folder), "--json")
    trace_id = json.loads(out)[0]["trace_id"]

    code, out, _ = await cli(capsys, "traces", "show", trace_id, "--data-dir", str(folder))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "[chain]  graph" in out
    assert "[llm]" in out and "node=agent" in out and "model=gpt-cli (openai)" in out
    assert "messages sent:" in out
    # The model said nothing of its tokens: not reported, never a made-up 0.
    assert "totals: 1 model call, 0 tool calls, tokens not reported, model time" in out
    assert "model=gpt-cli (openai)  tokens not reported" in out and "0→0" not in out
    assert "cost" not in out  # no price in the config: no cost said

    code, out, _ = await cli(
        capsys, "traces", "show", trace_id, "--data-dir", str(folder), "--json"
    )
    shown = json.loads(out)
    assert shown["totals"]["model_calls"] == 1 and shown["totals"]["cost_usd"] is None
    totals = shown["totals"]
    assert (totals["input_tokens"], totals["output_tokens"]) == (None, None)
    assert totals["calls_without_tokens"] == 1
    (call,) = shown["children"]
    assert (call["run_type"], call["name"], call["model"]) == ("llm", HOSTILE_NAME, "gpt-cli")
    assert call["outputs"] == {"answer": "\x1b[31mred\x1b[0m"}  # whole, escaped as JSON


async def test_what_is_not_there_is_said_in_one_line(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(capsys, "traces", "show", "nope", "--data-dir", str(folder))
    assert (code, out) == (1, "")
    assert err == "agent-tui: no trace or run 'nope' in the trace store\n"

    empty = str(tmp_path / "none")
    code, out, err = await cli(capsys, "traces", "list", "--data-dir", empty)
    assert (code, out) == (0, "") and "no traces" in err
    code, out, _ = await cli(capsys, "traces", "list", "--data-dir", empty, "--json")
    assert (code, json.loads(out)) == (0, [])


async def test_a_damaged_store_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "damaged"
    folder.mkdir()
    (folder / "traces.sqlite3").write_bytes(b"not a database, \x1b[31mred\x1b[0m" * 100)
    for command in (["list"], ["show", "some-id"]):
        code, out, err = await cli(capsys, "traces", *command, "--data-dir", str(folder))
        assert (code, out) == (1, "")
        assert err.startswith("agent-tui: ") and "trace store" in err
        assert err.count("\n") == 1 and "\x1b" not in err


def test_serve_prints_its_url_and_stores_what_a_program_sends(tmp_path: Path) -> None:
    folder = tmp_path / "served"
    process = subprocess.Popen(
        [*AGENT_TUI, "traces", "serve", "--port", "0", "--data-dir", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        note = process.stderr.readline() + process.stderr.readline()
        assert "LANGSMITH_ENDPOINT" in note or "trace collector" in note
        key = (folder / "api-key").read_text().strip()
        assert key not in note

        send_a_trace(url, key, "thread-served")

        thread_flag = ["--thread", "thread-served"]

        def listed() -> list[dict[str, object]] | None:
            done = subprocess.run(
                [*AGENT_TUI, "traces", "list", "--json", "--data-dir", str(folder), *thread_flag],
                capture_output=True,
                text=True,
                check=True,
            )
            found: list[dict[str, object]] = json.loads(done.stdout)
            return found or None

        (trace,) = wait_until(listed, "the served trace")
        assert trace["model_calls"] == 1
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(20)
    assert process.returncode == 0
