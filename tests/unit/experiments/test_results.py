"""An experiment's summary rows and regressions, as the gate reads them."""

from __future__ import annotations

from agent_tui.experiments.evaluators import Verdict
from agent_tui.experiments.results import ERROR, SUCCESS, Experiment, Outcome
from agent_tui.experiments.targets import Target


def target(label: str) -> Target:
    return Target(label, label, "a", "echo", 1, {}, None)


def outcome(example: str, label: str, passed: bool | None, *, status: str = SUCCESS,
            latency: float = 1.0, tokens: int | None = None) -> Outcome:  # fmt: skip
    return Outcome(
        example, label, status, output=f"{example}-{label}-{passed}", latency=latency,
        verdict=Verdict(passed), input_tokens=tokens, output_tokens=tokens,
    )  # fmt: skip


def experiment(*outcomes: Outcome, labels: tuple[str, ...] = ("v1", "v2", "v3")) -> Experiment:
    ids = sorted({o.example_id for o in outcomes})
    return Experiment(
        "x", "d", "exact", [target(label) for label in labels],
        [{"id": i, "inputs": {}, "reference": "r"} for i in ids], list(outcomes),
    )  # fmt: skip


def test_a_later_version_failing_what_an_earlier_one_passes_is_a_regression() -> None:
    run = experiment(
        outcome("e1", "v1", True), outcome("e1", "v2", False), outcome("e1", "v3", True),
        outcome("e2", "v1", False), outcome("e2", "v2", True), outcome("e2", "v3", False),
        # An earlier failure that a later version fixes is no regression.
        outcome("e3", "v1", False), outcome("e3", "v2", True), outcome("e3", "v3", True),
        # A run that failed fails, when the evaluator judges.
        outcome("e4", "v1", True), outcome("e4", "v2", False, status=ERROR), outcome("e4", "v3", None),
    )  # fmt: skip
    found = [(r.example_id, r.passed_on, r.failed_on) for r in run.regressions()]
    assert found == [("e1", "v1", "v2"), ("e2", "v2", "v3"), ("e4", "v1", "v2")]


def test_summary_rows() -> None:
    run = experiment(
        outcome("e1", "v1", True, latency=1.0, tokens=10),
        outcome("e2", "v1", False, latency=3.0),
        outcome("e3", "v1", None, latency=2.0, tokens=5),
        outcome("e4", "v1", True, status=ERROR, latency=9.0),
        labels=("v1",),
    )
    (row,) = run.summaries()
    assert (row.passed, row.judged, row.pass_rate, row.errors) == (1, 3, 1 / 3, 1)
    assert row.median_latency == 2.0  # of the runs that succeeded
    assert (row.input_tokens, row.output_tokens) == (15, 15)


def test_saved_and_read_back_alike() -> None:
    run = experiment(outcome("e1", "v1", True, tokens=3), outcome("e1", "v2", False))
    again = Experiment.from_json(run.as_json())
    assert again.as_json() == run.as_json()
