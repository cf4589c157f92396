"""`agent-tui experiments run DATASET --assistant A --assistant B … | list | show ID`:
a dataset run on assistants or versions side by side (`experiments/`), headless.

`run` prints one summary row per assistant, then the regressions (an example an earlier
assistant passes and a later one fails) with both answers, and exits 1 when there is
one: a gate for CI. Experiments are saved in the user data folder; `show` prints one
again (tokens filled in from traces that arrived since), `--json` whole.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import sys
from typing import TYPE_CHECKING, Any

from agent_tui.chat.item_text import compact_json
from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    NotThere,
    UsageError,
    fail,
    print_json,
    print_table,
    run,
    say,
)
from agent_tui.experiments.outputs import as_text
from agent_tui.text.time_text import utc_minutes

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.experiments.results import Experiment

PREVIEW = 40


def run_experiment(args: argparse.Namespace) -> int:
    from agent_tui.datasets.model import DatasetError
    from agent_tui.datasets.store import DatasetStore
    from agent_tui.experiments.evaluators import EvaluatorError, evaluator_of
    from agent_tui.experiments.runner import fill_traces
    from agent_tui.experiments.runner import run_experiment as run_dataset
    from agent_tui.experiments.store import ExperimentStore
    from agent_tui.experiments.targets import resolve_targets

    progress = _progress_line if sys.stderr.isatty() else None
    store = ExperimentStore()

    async def work(client: AgentServerClient) -> int:
        # The dataset, the evaluator and the assistants are checked before any run.
        try:
            dataset = DatasetStore().load(args.dataset)
            evaluator = evaluator_of(args.evaluator)
        except DatasetError as error:
            raise NotThere(str(error)) from None
        except EvaluatorError as error:
            raise UsageError(f"--evaluator: {error}") from None
        if not dataset.examples:
            raise NotThere(f"dataset {dataset.name} has no examples")
        try:
            targets = await resolve_targets(client, args.assistants)
        except ValueError as error:  # an `@` without a version number
            raise UsageError(f"--assistant {error}") from None
        experiment = await run_dataset(
            client,
            dataset,
            targets,
            evaluator,
            concurrency=args.concurrency,
            output_keys=args.output_keys,
            on_progress=progress,
        )
        if progress is not None:
            sys.stderr.write("\r\x1b[K")
        await asyncio.to_thread(fill_traces, experiment)
        store.save(experiment)
        if args.json:
            print_json(experiment.as_json())
        else:
            print_experiment(experiment, details=False)
        regressions = experiment.regressions()
        if regressions:
            several = "examples" if len(regressions) > 1 else "example"
            return fail(
                f"{len(regressions)} {several} regressed (passed on an earlier assistant,"
                f" failed on a later one); experiment {experiment.id}",
                EXIT_API_ERROR,
            )
        return EXIT_OK

    return run(args, work, changes="run an experiment")


def _progress_line(done: int, total: int) -> None:
    sys.stderr.write(f"\r{done}/{total} runs")
    sys.stderr.flush()


def list_experiments(args: argparse.Namespace) -> int:
    from agent_tui.experiments.store import ExperimentStore

    experiments = ExperimentStore().all()
    if args.json:
        print_json(
            [
                {
                    "id": e.id,
                    "dataset": e.dataset,
                    "evaluator": e.evaluator,
                    "created_at": e.created_at.isoformat(),
                    "summary": [row.as_json() for row in e.summaries()],
                    "regressions": len(e.regressions()),
                }
                for e in experiments
            ]
        )
        return EXIT_OK
    if not experiments:
        say(
            "no experiments (run one with `agent-tui experiments run DATASET --assistant …`)",
            sys.stderr,
        )
        return EXIT_OK
    rows = [
        [
            e.id,
            e.dataset,
            e.evaluator,
            ", ".join(f"{row.target} {_rate(row.passed, row.judged)}" for row in e.summaries()),
            str(len(e.regressions())),
            utc_minutes(e.created_at),
        ]
        for e in experiments
    ]
    print_table(["ID", "DATASET", "EVALUATOR", "PASS RATES", "REGRESSIONS", "CREATED (UTC)"], rows)
    return EXIT_OK


def show_experiment(args: argparse.Namespace) -> int:
    from agent_tui.experiments.runner import fill_traces
    from agent_tui.experiments.store import ExperimentNotFound, ExperimentStore

    store = ExperimentStore()
    try:
        experiment = store.load(args.experiment)
    except ExperimentNotFound as error:
        return fail(error, EXIT_API_ERROR)
    if fill_traces(experiment):  # traces that arrived after the run ended
        store.save(experiment)
    if args.json:
        print_json(experiment.as_json())
    else:
        print_experiment(experiment, details=True)
    return EXIT_OK


def _rate(passed: int, judged: int) -> str:
    return f"{passed}/{judged} {100 * passed / judged:.0f}%" if judged else "—"


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}s"


def _tokens(input_tokens: int | None, output_tokens: int | None) -> str:
    return "—" if input_tokens is None else f"{input_tokens}→{output_tokens or 0}"


def print_experiment(experiment: Experiment, *, details: bool) -> None:
    targets = experiment.targets
    total = _seconds(experiment.seconds)
    say(
        f"experiment {experiment.id}: dataset {experiment.dataset}, "
        f"{len(experiment.examples)} examples x {len(targets)} assistants, "
        f"evaluator {experiment.evaluator}, {total}"
    )
    rows = [
        [
            row.target,
            _rate(row.passed, row.judged),
            _seconds(row.median_latency),
            _tokens(row.input_tokens, row.output_tokens),
            "—" if row.model_calls is None else str(row.model_calls),
            str(row.errors),
        ]
        for row in experiment.summaries()
    ]
    print_table(
        ["ASSISTANT", "PASS RATE", "MEDIAN LATENCY", "TOKENS IN→OUT", "MODEL CALLS", "ERRORS"], rows
    )
    inputs = {example["id"]: example for example in experiment.examples}
    table = experiment.by_example()
    if details:
        say("")
        headers = ["EXAMPLE", "INPUT", "REFERENCE", *(t.label for t in targets)]
        cells = []
        for example_id, row in table.items():
            example = inputs.get(example_id, {})
            cells.append(
                [
                    example_id,
                    _input_text(example.get("inputs")),
                    _cell(example.get("reference")),
                    *(_outcome_cell(row.get(t.label)) for t in targets),
                ]
            )
        print_table(headers, cells)
        differing = experiment.differing()
        if differing:
            several = "examples" if len(differing) > 1 else "example"
            say(f"\n{len(differing)} {several} answered differently:")
            for example_id in differing:
                _print_diff(example_id, table[example_id], [t.label for t in targets])
    regressions = experiment.regressions()
    if regressions:
        several = "regressions" if len(regressions) > 1 else "regression"
        say(
            f"\n{len(regressions)} {several} (passed on an earlier assistant,"
            " failed on a later one):"
        )
        for regression in regressions:
            row = table.get(regression.example_id, {})
            example = inputs.get(regression.example_id, {})
            say(
                f"  {regression.example_id}  {_input_text(example.get('inputs'))}:"
                f" {regression.passed_on} {_cell(_answer(row.get(regression.passed_on)))}"
                f" → {regression.failed_on} {_cell(_answer(row.get(regression.failed_on)))}"
            )


def _answer(outcome: Any) -> Any:
    if outcome is None:
        return None
    return outcome.output if outcome.error is None else f"[{outcome.status}] {outcome.error}"


def _outcome_cell(outcome: Any) -> str:
    if outcome is None:
        return "—"
    mark = {True: "✓", False: "✗", None: "·"}[outcome.passed]
    return f"{mark} {_cell(_answer(outcome))}"


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    return compact_json(value, PREVIEW) if not isinstance(value, str) else _cut(value)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def _input_text(inputs: Any) -> str:
    if isinstance(inputs, dict) and isinstance(inputs.get("messages"), list) and inputs["messages"]:
        last = inputs["messages"][-1]
        if isinstance(last, dict):
            return _cut(str(last.get("content", "")))
    return _cell(inputs)


def _print_diff(example_id: str, row: dict[str, Any], labels: list[str]) -> None:
    say(f"  {example_id}")
    first = labels[0]
    before = as_text(_answer(row.get(first))).splitlines() or [""]
    for label in labels[1:]:
        after = as_text(_answer(row.get(label))).splitlines() or [""]
        for line in difflib.unified_diff(before, after, first, label, lineterm="", n=1):
            say(f"    {line}")
