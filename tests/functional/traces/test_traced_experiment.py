"""An experiment on a traced server: each outcome's tokens and model calls come from this
machine's trace store (the runs' own traces), and the summary adds them up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.datasets.model import Dataset, Example
from agent_tui.experiments.evaluators import evaluator_of
from agent_tui.experiments.runner import fill_traces, run_experiment
from agent_tui.experiments.targets import resolve_targets
from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.trace_collector import TraceCollector
from agent_tui.traces.store import DB_FILE
from tests.support.openai_standin import OpenAIStandIn
from tests.support.traces import wait_until

CONFIG = Path(__file__).resolve().parents[2] / "graphs" / "traced" / "langgraph.json"


@pytest.fixture(scope="module")
def collector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TraceCollector]:
    with TraceCollector(tmp_path_factory.mktemp("traces")) as running:
        yield running


@pytest.fixture(scope="module")
def server_url(
    tmp_path_factory: pytest.TempPathFactory, collector: TraceCollector
) -> Iterator[str]:
    standin = OpenAIStandIn()
    standin.start()
    data_dir = tmp_path_factory.mktemp("traced-server")
    env = {
        **collector.tracing_environment(),
        "OPENAI_BASE_URL": standin.url,
        "OPENAI_API_KEY": "sk-standin-0123456789abcdefXYZ",
    }
    try:
        with EmbeddedAgentServer(
            CONFIG, data_dir=data_dir, log_file=data_dir / "server.log", env=env
        ) as server:
            yield server.url
    finally:
        standin.stop()


async def test_tokens_and_model_calls_from_the_runs_traces(
    server_url: str, collector: TraceCollector
) -> None:
    dataset = Dataset(
        "weather",
        [
            Example({"messages": [{"role": "user", "content": f"Weather in {city}?"}]}, None)
            for city in ("Paris", "Oslo")
        ],
    )
    async with AgentServerClient(server_url) as client:
        targets = await resolve_targets(client, ["weather"])
        experiment = await run_experiment(client, dataset, targets, evaluator_of("regex:."))
    assert [o.status for o in experiment.outcomes] == ["success", "success"]
    assert all(o.run_id for o in experiment.outcomes)

    store_path = collector.folder / DB_FILE

    def filled() -> bool | None:
        fill_traces(experiment, store_path)
        return all(o.model_calls == 2 for o in experiment.outcomes) or None

    wait_until(filled, "both runs' traces with their two model calls")
    for outcome in experiment.outcomes:
        # The stand-in's answers: a tool call (21→7 tokens), then the answer (34→9).
        assert (outcome.input_tokens, outcome.output_tokens) == (55, 16)
    (row,) = experiment.summaries()
    assert (row.model_calls, row.input_tokens, row.output_tokens) == (4, 110, 32)
