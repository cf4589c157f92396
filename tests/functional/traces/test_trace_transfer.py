"""`agent-tui export --traces` puts a thread's traces in its export file, and `import`
stores them again for the new thread: the same calls, tokens and nodes, under new ids."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local.trace_collector import TraceCollector, default_folder
from agent_tui.traces.calls import list_calls
from tests.support.cli import cli
from tests.support.traces import finished_trace, run_weather_agent, traced_agent_server


@pytest.fixture(scope="module")
def traced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, TraceCollector]]:
    """A server tracing to a collector on the default store (the one export reads)."""
    data_dir = tmp_path_factory.mktemp("traced-server")
    with (
        TraceCollector(default_folder()) as collector,
        traced_agent_server(collector, data_dir) as url,
    ):
        yield url, collector


async def test_traces_travel_with_the_thread(
    traced_server: tuple[str, TraceCollector], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, collector = traced_server
    thread_id, _ = run_weather_agent(url, "Weather in Paris?", {})
    finished_trace(collector, thread_id=thread_id, calls=3)
    original = list_calls(collector.store, thread_id=thread_id)
    file = tmp_path / "thread.json"

    code, _, err = await cli(capsys, "export", thread_id, "-o", str(file), "--traces", "--url", url)
    assert code == 0 and "traced runs" in err
    exported = json.loads(file.read_text())
    assert {run["name"] for run in exported["traces"]} >= {
        "weather",
        "ChatOpenAI",
        "lookup_weather",
    }

    copies = []
    for _ in range(2):  # twice: the second copy must not overwrite the first
        code, out, _ = await cli(capsys, "import", str(file), "--url", url, "--json")
        assert code == 0
        imported = json.loads(out)
        assert imported["traced_runs"] == len(exported["traces"])
        copies.append(imported["thread_id"])

    for new_thread in copies:
        calls = list_calls(collector.store, thread_id=new_thread)
        shown = [(c.run_type, c.name, c.node, c.model, c.input_tokens) for c in calls]
        assert shown == [(c.run_type, c.name, c.node, c.model, c.input_tokens) for c in original]
        assert not {c.id for c in calls} & {c.id for c in original}
        assert all(c.thread_id == new_thread for c in calls)
    assert list_calls(collector.store, thread_id=thread_id) == original


async def test_an_export_without_traces_is_said(
    traced_server: tuple[str, TraceCollector], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = traced_server
    # A thread with no run has no trace: the file says so with an empty list.
    created = await asyncio.to_thread(httpx.post, f"{url}/threads", json={})
    thread_id = created.json()["thread_id"]
    file = tmp_path / "empty.json"
    code, _, err = await cli(capsys, "export", thread_id, "-o", str(file), "--traces", "--url", url)
    assert code == 0
    assert f"no traces of {thread_id}" in err
    assert json.loads(file.read_text())["traces"] == []

    bad = json.loads(file.read_text())
    bad["traces"] = [{"name": "no id"}]
    file.write_text(json.dumps(bad))
    code, _, err = await cli(capsys, "import", str(file), "--url", url)
    assert code == 1 and "traces[0]: a run with an id is needed" in err


async def test_an_export_without_traces_leaves_tracing_on(
    traced_server: tuple[str, TraceCollector],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`export` without `--traces` writes no traces, and does not turn tracing off for the
    servers the process starts next (its flag shared the name of `--no-traces`'s switch:
    every export turned tracing off, seen when a later `serve` in the same process ran
    untraced)."""
    monkeypatch.delenv("AGENT_TUI_TRACES", raising=False)
    url, _ = traced_server
    thread_id, _ = run_weather_agent(url, "Weather in Oslo?", {})
    file = tmp_path / "thread.json"
    code, _, err = await cli(capsys, "export", thread_id, "-o", str(file), "--url", url)
    assert code == 0 and "traced runs" not in err
    assert "traces" not in json.loads(file.read_text())
    assert "AGENT_TUI_TRACES" not in os.environ
