"""The local servers agent-tui starts trace to its collector unless told not to: a run
of `agent-tui serve` is in the trace store with no setting at all, and a project that
sets its own LangSmith tracing in its `env` keeps it (nothing of ours is added)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.traces.query import open_for_reading
from tests.support.openai_standin import OpenAIStandIn
from tests.support.serve import Serve
from tests.support.traces import finished_trace, run_weather_agent, wait_until

PROJECT = Path(__file__).resolve().parents[2] / "graphs" / "traced"


@pytest.fixture(scope="module")
def standin() -> Iterator[OpenAIStandIn]:
    server = OpenAIStandIn()
    server.start()
    yield server
    server.stop()


def serve(home: Path, config: Path, standin: OpenAIStandIn, *flags: str) -> Serve:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": standin.url,
        "OPENAI_API_KEY": "sk-standin-key-0123456789",
    }
    env.pop("AGENT_TUI_TRACES", None)
    return Serve(home, config.parent, "--config", str(config), "--no-reload", *flags, env=env)


def test_agent_tui_serve_traces_every_call_to_the_collector(
    tmp_path: Path, standin: OpenAIStandIn
) -> None:
    home = tmp_path / "home"
    served = serve(home, PROJECT / "langgraph.json", standin)
    try:
        thread_id, run_id = run_weather_agent(served.url(), "Weather in Paris?", {})
        store_file = home / "data" / "traces" / "traces.sqlite3"
        store = wait_until(lambda: open_for_reading(store_file), "the trace store")
        try:
            summary, tree = finished_trace(store, thread_id=thread_id, calls=3)
        finally:
            store.close()
    finally:
        assert served.stop() == 0
    assert summary.graph_run_id == run_id
    assert [call.name for call in tree.calls()] == ["ChatOpenAI", "lookup_weather", "ChatOpenAI"]
    assert "sk-standin-key-0123456789" not in served.stderr


def test_a_project_with_its_own_langsmith_settings_keeps_them(
    tmp_path: Path, standin: OpenAIStandIn
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(PROJECT / "agent.py", project / "agent.py")
    config = json.loads((PROJECT / "langgraph.json").read_text())
    config["graphs"] = {"weather": config["graphs"]["weather"]}  # the one graph copied
    config["env"] = {"LANGSMITH_TRACING": "false"}
    (project / "langgraph.json").write_text(json.dumps(config))
    home = tmp_path / "home"

    served = serve(home, project / "langgraph.json", standin)
    try:
        run_weather_agent(served.url(), "Weather in Paris?", {})
    finally:
        assert served.stop() == 0
    # Our collector was never started for it: there is no store at all.
    assert not (home / "data" / "traces").exists()


def test_no_traces_turns_it_off(tmp_path: Path, standin: OpenAIStandIn) -> None:
    home = tmp_path / "home"
    served = serve(home, PROJECT / "langgraph.json", standin, "--no-traces")
    try:
        run_weather_agent(served.url(), "Weather in Paris?", {})
    finally:
        assert served.stop() == 0
    assert not (home / "data" / "traces").exists()
