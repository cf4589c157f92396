"""A real agent server's runs traced to the local collector: the graph runs a real chat
model class (`ChatOpenAI`, streaming, with a tool) against the tests' OpenAI stand-in,
and the server's own `langsmith` SDK sends every run to the collector."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.trace_collector import TraceCollector
from agent_tui.traces.calls import list_calls
from tests.support import openai_standin
from tests.support.openai_standin import OpenAIStandIn
from tests.support.traces import finished_trace, run_weather_agent, stored_bytes

CONFIG = Path(__file__).resolve().parents[2] / "graphs" / "traced" / "langgraph.json"
MODEL_KEY = "sk-standin-0123456789abcdefXYZ"
PASTED_KEY = "sk-proj-PASTEDpastedPASTED1234567890"
METADATA_KEY = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"


@pytest.fixture(scope="module")
def standin() -> Iterator[OpenAIStandIn]:
    server = OpenAIStandIn()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def collector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TraceCollector]:
    with TraceCollector(tmp_path_factory.mktemp("traces")) as running:
        yield running


@pytest.fixture(scope="module")
def server_url(
    tmp_path_factory: pytest.TempPathFactory, standin: OpenAIStandIn, collector: TraceCollector
) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("traced-server")
    env = {
        **collector.tracing_environment(),
        "OPENAI_BASE_URL": standin.url,
        "OPENAI_API_KEY": MODEL_KEY,
    }
    server = EmbeddedAgentServer(
        CONFIG, data_dir=data_dir, log_file=data_dir / "server.log", env=env
    )
    with server:
        yield server.url


def test_a_run_lists_its_model_and_tool_calls(
    server_url: str, collector: TraceCollector, standin: OpenAIStandIn
) -> None:
    thread_id, run_id = run_weather_agent(server_url, "Weather in Paris?", {"team": "qa"})

    summary, tree = finished_trace(collector, thread_id=thread_id, calls=3)

    assert summary.graph_run_id == run_id
    assert summary.thread_id == thread_id
    assert (summary.model_calls, summary.tool_calls) == (2, 1)
    assert summary.input_tokens == 21 + 34
    assert summary.output_tokens == 7 + 9
    calls = tree.calls()
    assert [(call.run_type, call.node) for call in calls] == [
        ("llm", "agent"),
        ("tool", "tools"),
        ("llm", "agent"),
    ]
    first, tool, second = calls
    for call in (first, second):
        assert call.model == openai_standin.MODEL
        assert call.provider == "openai"
        assert call.thread_id == thread_id
        assert call.checkpoint_ns is not None and call.checkpoint_ns.startswith("agent:")
        assert call.invocation_params["temperature"] == 0.2
        assert call.status == "success"
        # Streamed: the first token came after the call began and before it ended.
        assert call.start_time and call.first_token_time and call.end_time
        assert call.start_time <= call.first_token_time <= call.end_time
    assert first.tokens == (21, 7, 28)
    assert second.tokens == (34, 9, 43)
    assert (first.finish_reason, second.finish_reason) == ("tool_calls", "stop")
    # What the model was sent, as the stand-in received it.
    sent = standin.requests[-2]["messages"]
    assert [m.get("role") for m in sent] == ["system", "user"]
    traced = first.messages
    assert len(traced) == 2 and "weather bot" in str(traced[0])
    assert "lookup_weather" in str(first.invocation_params.get("tools"))
    assert tool.name == "lookup_weather"
    assert "Sunny in Paris" in str(tool.outputs)
    assert openai_standin.ANSWER in str(second.outputs)
    # The calls list (the store's columns, no body read) says the same.
    listed = list_calls(collector.store, thread_id=thread_id)
    assert [(c.id, c.name, c.node, c.model) for c in listed] == [
        (c.id, c.name, c.node, c.model) for c in calls
    ]
    assert [(c.input_tokens, c.output_tokens, c.finish_reason) for c in listed] == [
        (21, 7, "tool_calls"),
        (None, None, None),
        (34, 9, "stop"),
    ]
    assert listed[0].first_token_time == first.first_token_time
    assert listed[0].checkpoint_ns == first.checkpoint_ns
    assert all(c.graph_run_id == run_id and c.status == "success" for c in listed)
    assert list_calls(collector.store, run_id=run_id) == listed


def test_the_server_sends_compressed_batches(server_url: str, collector: TraceCollector) -> None:
    thread_id, _ = run_weather_agent(server_url, "And now?", {})
    finished_trace(collector, thread_id=thread_id, calls=3)

    # The SDK compresses once it has read /info; what it queued before that goes plain.
    assert collector.received["multipart+zstd"] >= 1
    assert set(collector.received) <= {"multipart+zstd", "multipart"}


def test_no_secret_is_stored(server_url: str, collector: TraceCollector) -> None:
    thread_id, _ = run_weather_agent(
        server_url,
        f"Weather in Paris? My key is {PASTED_KEY}",
        {"langsmith_api_key": METADATA_KEY, "note": f"Authorization: Bearer {METADATA_KEY}"},
    )
    _, tree = finished_trace(collector, thread_id=thread_id, calls=3)

    assert "[redacted]" in str(tree.calls()[0].messages)
    assert tree.calls()[0].metadata["langsmith_api_key"] == "[redacted]"
    everything = stored_bytes(collector)
    for secret in (PASTED_KEY, METADATA_KEY, MODEL_KEY, collector.api_key):
        assert secret.encode() not in everything
