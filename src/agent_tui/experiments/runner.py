"""Running an experiment: every example on every target, each on a thread of its own,
at most `concurrency` runs at a time; each answer judged as it comes.

A run is one `POST /threads/{id}/runs/wait` with the example's inputs and the target
version's context, timed from the request to the answer. Cancelled (ctrl+c, `esc`), the
runs it started are cancelled on the server too. Tokens and model calls come from this
machine's trace store, for the runs traced there (`fill_traces`).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent_tui.experiments.evaluators import Evaluator, Verdict
from agent_tui.experiments.outputs import output_of, reference_of
from agent_tui.experiments.results import (
    CANCELLED,
    ERROR,
    INTERRUPTED,
    SUCCESS,
    Experiment,
    Outcome,
)
from agent_tui.experiments.targets import Target
from agent_tui.text.time_text import now_utc, utc_file_stamp

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.datasets.model import Dataset, Example

Progress = Callable[[int, int], None]  # (runs done, runs in all)
CANCEL_WAIT = 5.0  # seconds to tell the server to cancel what is still running


def new_experiment_id() -> str:
    return f"{utc_file_stamp(now_utc())}-{secrets.token_hex(2)}"


def experiment_of(
    dataset: Dataset,
    targets: Sequence[Target],
    evaluator: Evaluator,
    *,
    concurrency: int,
    output_keys: Sequence[str] = (),
) -> Experiment:
    return Experiment(
        id=new_experiment_id(),
        dataset=dataset.name,
        evaluator=evaluator.spec,
        targets=list(targets),
        examples=[
            {
                "id": example.id,
                "inputs": example.inputs,
                "reference": reference_of(example.outputs, output_keys),
            }
            for example in dataset.examples
        ],
        concurrency=concurrency,
        output_keys=list(output_keys),
    )


def _failure(values: dict[str, Any]) -> str:
    error = values.get("__error__")
    if isinstance(error, dict):
        kind, message = error.get("error"), error.get("message")
        return f"{kind}: {message}" if kind and message else str(message or kind or error)
    return str(error)


async def run_one(
    client: AgentServerClient,
    experiment: Experiment,
    example: Example,
    target: Target,
    evaluator: Evaluator,
    in_flight: set[str],
) -> Outcome:
    from agent_tui.client import ApiError

    reference = reference_of(example.outputs, experiment.output_keys)
    outcome = Outcome(example.id, target.label, ERROR)
    try:
        thread = await client.threads.create(
            metadata={
                "graph_id": target.graph_id,
                "assistant_id": target.assistant_id,
                "experiment_id": experiment.id,
                "example_id": example.id,
            }
        )
        outcome.thread_id = thread.thread_id
        in_flight.add(thread.thread_id)
        started = time.perf_counter()
        waited = await client.runs.wait(
            thread.thread_id,
            target.assistant_id,
            input=example.inputs,
            context=target.context,
            config=target.config,
        )
        outcome.latency = time.perf_counter() - started
        in_flight.discard(thread.thread_id)
        outcome.run_id = waited.run_id
        values = waited.values
        if isinstance(values, dict) and "__error__" in values:
            outcome.error = _failure(values)
        else:
            outcome.status = (
                INTERRUPTED if isinstance(values, dict) and values.get("__interrupt__") else SUCCESS
            )
            outcome.output = output_of(values, experiment.output_keys)
    except asyncio.CancelledError:
        outcome.status = CANCELLED
        raise
    except ApiError as error:
        outcome.error = str(error)
    example_json = {"id": example.id, "inputs": example.inputs, "outputs": example.outputs}
    if outcome.status == SUCCESS:
        outcome.verdict = await evaluator.verdict(outcome.output, reference, example_json)
    elif reference is not None or not evaluator.needs_reference:
        outcome.verdict = Verdict(False, comment=f"the run ended {outcome.status}")
    return outcome


async def run_experiment(
    client: AgentServerClient,
    dataset: Dataset,
    targets: Sequence[Target],
    evaluator: Evaluator,
    *,
    concurrency: int = 4,
    output_keys: Sequence[str] = (),
    on_progress: Progress | None = None,
) -> Experiment:
    """Run `dataset` on `targets`; the outcomes in the dataset's order, target by target."""
    experiment = experiment_of(
        dataset, targets, evaluator, concurrency=concurrency, output_keys=output_keys
    )
    gate = asyncio.Semaphore(concurrency)
    in_flight: set[str] = set()
    total = len(dataset.examples) * len(targets)
    done = 0

    async def guarded(example: Example, target: Target) -> Outcome:
        nonlocal done
        async with gate:
            outcome = await run_one(client, experiment, example, target, evaluator, in_flight)
        done += 1
        if on_progress is not None:
            on_progress(done, total)
        return outcome

    started = time.perf_counter()
    # Example by example, each on every target: the targets advance side by side.
    tasks = [
        asyncio.ensure_future(guarded(example, target))
        for example in dataset.examples
        for target in targets
    ]
    try:
        experiment.outcomes = list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await cancel_runs(client, in_flight)
        raise
    experiment.seconds = time.perf_counter() - started
    return experiment


async def cancel_runs(client: AgentServerClient, thread_ids: set[str]) -> None:
    """Cancel what still runs on `thread_ids` (the runs an experiment started)."""
    from agent_tui.client import ApiError

    async def cancel(thread_id: str) -> None:
        with contextlib.suppress(ApiError):
            for run in await client.runs.list(thread_id, limit=5):
                if run.status in ("pending", "running"):
                    await client.runs.cancel(thread_id, run.run_id)

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(CANCEL_WAIT):
            await asyncio.gather(*(cancel(thread_id) for thread_id in list(thread_ids)))


def fill_traces(experiment: Experiment, store_path: Any = None) -> int:
    """Tokens and model calls of the outcomes whose runs this machine traced (blocking:
    call it from a thread); the number of outcomes whose figures changed. Read again each
    time: a trace may have been partial when last read (the SDK sends it in batches)."""
    from agent_tui.traces.totals import totals_of_runs

    wanted = [o for o in experiment.outcomes if o.run_id]
    if not wanted:
        return 0
    totals = totals_of_runs([o.run_id for o in wanted if o.run_id], store_path=store_path)
    filled = 0
    for outcome in wanted:
        found = totals.get(outcome.run_id or "")
        if found is None:
            continue
        figures = (found.model_calls, found.input_tokens, found.output_tokens)
        if figures != (outcome.model_calls, outcome.input_tokens, outcome.output_tokens):
            outcome.model_calls, outcome.input_tokens, outcome.output_tokens = figures
            filled += 1
    return filled
