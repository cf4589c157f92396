"""An experiment cancelled (ctrl+c in the CLI) cancels the runs it started on the server,
and starts no more: nothing keeps running on the user's server behind their back."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.datasets.model import Dataset, Example
from agent_tui.experiments.evaluators import evaluator_of
from agent_tui.experiments.runner import run_experiment
from agent_tui.experiments.targets import resolve_targets


async def threads_of(client: AgentServerClient, examples: list[Example]) -> list[str]:
    found = []
    for example in examples:
        threads = await client.threads.search(metadata={"example_id": example.id}, limit=5)
        found += [thread.thread_id for thread in threads]
    return found


async def test_cancelling_an_experiment_cancels_its_runs(
    client: AgentServerClient, tmp_path: Path
) -> None:
    # The gate file never appears: each run ticks on until it is cancelled.
    made = await client.assistants.create("ticker", {"gate": str(tmp_path / "never")})
    examples = [Example({}, {"done": 1}) for _ in range(3)]
    targets = await resolve_targets(client, [made.assistant_id])
    task = asyncio.ensure_future(
        run_experiment(
            client, Dataset("slow", examples), targets, evaluator_of("exact"), concurrency=2
        )
    )
    started: list[str] = []
    for _ in range(600):
        started = await threads_of(client, examples)
        statuses = [[run.status for run in await client.runs.list(t)] for t in started]
        if statuses == [["running"], ["running"]]:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail(f"two runs never ran at once: {started}")

    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for thread_id in started:
        (run,) = await client.runs.list(thread_id)
        assert run.status == "interrupted", (thread_id, run.status)
    # The third example never started.
    assert len(await threads_of(client, examples)) == 2
    await client.assistants.delete(made.assistant_id)
