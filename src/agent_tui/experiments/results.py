"""An experiment's results: each example's answer per target, the summary row of each
target, and the regressions (an example an earlier target passes that a later one does
not). Kept as JSON (`store.py`), printed by the CLI."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_tui.experiments.evaluators import Verdict
from agent_tui.experiments.targets import Target
from agent_tui.text.time_text import now_utc

SUCCESS, ERROR, INTERRUPTED, CANCELLED = "success", "error", "interrupted", "cancelled"


@dataclass(slots=True)
class Outcome:
    """One example run on one target."""

    example_id: str
    target: str  # the target's label
    status: str
    output: Any = None
    error: str | None = None
    latency: float | None = None  # seconds, from the run's request to its answer
    thread_id: str | None = None
    run_id: str | None = None
    verdict: Verdict = field(default_factory=lambda: Verdict(None))
    model_calls: int | None = None  # None: not traced on this machine
    input_tokens: int | None = None
    output_tokens: int | None = None

    @property
    def passed(self) -> bool | None:
        """The verdict; a run that did not succeed fails (when the evaluator judges)."""
        if self.status != SUCCESS and self.verdict.passed is not None:
            return False
        return self.verdict.passed

    def as_json(self) -> dict[str, Any]:
        return {
            "example_id": self.example_id,
            "target": self.target,
            "status": self.status,
            "output": self.output,
            "error": self.error,
            "latency": self.latency,
            "thread_id": self.thread_id,
            "run_id": self.run_id,
            "passed": self.passed,
            "verdict": self.verdict.as_json(),
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            example_id=data["example_id"],
            target=data["target"],
            status=data["status"],
            output=data.get("output"),
            error=data.get("error"),
            latency=data.get("latency"),
            thread_id=data.get("thread_id"),
            run_id=data.get("run_id"),
            verdict=Verdict.from_json(data.get("verdict") or {}),
            model_calls=data.get("model_calls"),
            input_tokens=data.get("input_tokens"),
            output_tokens=data.get("output_tokens"),
        )


@dataclass(frozen=True, slots=True)
class Summary:
    target: str
    runs: int
    passed: int
    judged: int
    errors: int
    median_latency: float | None
    input_tokens: int | None
    output_tokens: int | None
    model_calls: int | None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.judged if self.judged else None

    def as_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "runs": self.runs,
            "passed": self.passed,
            "judged": self.judged,
            "pass_rate": self.pass_rate,
            "errors": self.errors,
            "median_latency": self.median_latency,
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


@dataclass(frozen=True, slots=True)
class Regression:
    example_id: str
    passed_on: str  # the earlier target's label
    failed_on: str

    def as_json(self) -> dict[str, Any]:
        return {
            "example_id": self.example_id,
            "passed_on": self.passed_on,
            "failed_on": self.failed_on,
        }


def _sum(values: list[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


@dataclass(slots=True)
class Experiment:
    id: str
    dataset: str
    evaluator: str
    targets: list[Target]
    examples: list[dict[str, Any]]  # {"id", "inputs", "reference"}, in the dataset's order
    outcomes: list[Outcome] = field(default_factory=list)
    concurrency: int = 4
    output_keys: list[str] = field(default_factory=list)
    created_at: datetime = field(default_factory=now_utc)
    seconds: float | None = None  # wall time of the whole experiment

    def outcome(self, example_id: str, target: str) -> Outcome | None:
        for outcome in self.outcomes:
            if outcome.example_id == example_id and outcome.target == target:
                return outcome
        return None

    def by_example(self) -> dict[str, dict[str, Outcome]]:
        table: dict[str, dict[str, Outcome]] = {example["id"]: {} for example in self.examples}
        for outcome in self.outcomes:
            table.setdefault(outcome.example_id, {})[outcome.target] = outcome
        return table

    def summaries(self) -> list[Summary]:
        rows = []
        for target in self.targets:
            mine = [o for o in self.outcomes if o.target == target.label]
            latencies = [o.latency for o in mine if o.latency is not None and o.status == SUCCESS]
            rows.append(
                Summary(
                    target=target.label,
                    runs=len(mine),
                    passed=sum(o.passed is True for o in mine),
                    judged=sum(o.passed is not None for o in mine),
                    errors=sum(o.status != SUCCESS for o in mine),
                    median_latency=statistics.median(latencies) if latencies else None,
                    input_tokens=_sum([o.input_tokens for o in mine]),
                    output_tokens=_sum([o.output_tokens for o in mine]),
                    model_calls=_sum([o.model_calls for o in mine]),
                )
            )
        return rows

    def regressions(self) -> list[Regression]:
        """Each example that a target passes and a later one fails, named once per
        later target (against the first earlier target that passed)."""
        found = []
        labels = [target.label for target in self.targets]
        for example_id, row in self.by_example().items():
            for later_index, later in enumerate(labels):
                outcome = row.get(later)
                if outcome is None or outcome.passed is not False:
                    continue
                earlier = next(
                    (
                        label
                        for label in labels[:later_index]
                        if (o := row.get(label)) is not None and o.passed is True
                    ),
                    None,
                )
                if earlier is not None:
                    found.append(Regression(example_id, earlier, later))
        return found

    def differing(self) -> list[str]:
        """The examples whose answers are not the same on every target."""
        found = []
        for example_id, row in self.by_example().items():
            answers = [row[t.label].output for t in self.targets if t.label in row]
            if any(answer != answers[0] for answer in answers[1:]):
                found.append(example_id)
        return found

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "dataset": self.dataset,
            "evaluator": self.evaluator,
            "created_at": self.created_at.isoformat(),
            "seconds": self.seconds,
            "concurrency": self.concurrency,
            "output_keys": self.output_keys,
            "targets": [target.as_json() for target in self.targets],
            "summary": [row.as_json() for row in self.summaries()],
            "regressions": [r.as_json() for r in self.regressions()],
            "differing": self.differing(),
            "examples": self.examples,
            "outcomes": [outcome.as_json() for outcome in self.outcomes],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Experiment:
        return cls(
            id=data["id"],
            dataset=data["dataset"],
            evaluator=data["evaluator"],
            targets=[Target.from_json(t) for t in data["targets"]],
            examples=list(data["examples"]),
            outcomes=[Outcome.from_json(o) for o in data.get("outcomes", [])],
            concurrency=int(data.get("concurrency") or 1),
            output_keys=list(data.get("output_keys") or []),
            created_at=datetime.fromisoformat(data["created_at"]),
            seconds=data.get("seconds"),
        )
