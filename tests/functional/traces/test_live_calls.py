"""The calls of a run read live from the `events` stream mode, for a server whose runs are
not traced here: the same models, nodes, tokens and finish reasons a trace gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse

from agent_tui.local import EmbeddedAgentServer
from agent_tui.traces.live_calls import LiveCalls
from agent_tui.traces.totals import run_totals
from tests.support import openai_standin
from tests.support.openai_standin import OpenAIStandIn

CONFIG = Path(__file__).resolve().parents[2] / "graphs" / "traced" / "langgraph.json"


@pytest.fixture(scope="module")
def untraced_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    standin = OpenAIStandIn()
    standin.start()
    data_dir = tmp_path_factory.mktemp("untraced-server")
    env = {"OPENAI_BASE_URL": standin.url, "OPENAI_API_KEY": "sk-standin-0123456789abcdef"}
    server = EmbeddedAgentServer(
        CONFIG, data_dir=data_dir, log_file=data_dir / "server.log", env=env
    )
    with server:
        yield server.url
    standin.stop()


def test_a_streamed_runs_calls_come_from_its_events(untraced_url: str) -> None:
    live = LiveCalls()
    with httpx.Client(base_url=untraced_url, timeout=60) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        body = {
            "assistant_id": "weather",
            "input": {"messages": [{"role": "user", "content": "Weather in Paris?"}]},
            "stream_mode": ["events"],
        }
        with connect_sse(http, "POST", f"/threads/{thread_id}/runs/stream", json=body) as source:
            for event in source.iter_sse():
                if event.event == "events":
                    live.feed(event.json())

    first, tool, second = live.calls
    assert [(c.run_type, c.name, c.node) for c in live.calls] == [
        ("llm", "ChatOpenAI", "agent"),
        ("tool", "lookup_weather", "tools"),
        ("llm", "ChatOpenAI", "agent"),
    ]
    assert (first.model, first.provider) == (openai_standin.MODEL, "openai")
    assert (first.input_tokens, first.output_tokens, first.finish_reason) == (21, 7, "tool_calls")
    assert (second.input_tokens, second.output_tokens, second.finish_reason) == (34, 9, "stop")
    assert "weather bot" in str(first.messages[0])
    assert first.first_token_time is not None
    assert first.checkpoint_ns is not None and first.checkpoint_ns.startswith("agent:")
    assert "Sunny in Paris" in str(tool.outputs)
    assert all(call.status == "success" for call in live.calls)
    totals = run_totals(live.calls)
    assert (totals.model_calls, totals.tool_calls, totals.input_tokens) == (2, 1, 55)
