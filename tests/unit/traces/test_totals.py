"""A run's totals: calls, tokens, model time against wall time (calls at once counted
once), and a cost only from the prices the config gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_tui.traces.calls import CallSummary
from agent_tui.traces.totals import ModelPrice, busy_seconds, price_of, run_totals

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def call(
    run_type: str,
    start: float,
    end: float,
    model: str | None = None,
    tokens: tuple[int | None, int | None] = (0, 0),
) -> CallSummary:
    return CallSummary(
        id=f"{run_type}-{start}", trace_id="t", parent_run_id="p", run_type=run_type, name="x",
        node="agent", checkpoint_ns=None, thread_id="th", graph_run_id="t", model=model,
        provider="openai" if model else None,
        start_time=T0 + timedelta(seconds=start), end_time=T0 + timedelta(seconds=end),
        first_token_time=None, input_tokens=tokens[0] if run_type == "llm" else None,
        output_tokens=tokens[1] if run_type == "llm" else None, finish_reason=None,
        status="success",
    )  # fmt: skip


def test_parallel_calls_count_once_in_model_time() -> None:
    spans = [
        (T0, T0 + timedelta(seconds=2)),
        (T0 + timedelta(seconds=1), T0 + timedelta(seconds=3)),
    ]
    assert busy_seconds(spans) == 3.0
    assert busy_seconds([*spans, (T0 + timedelta(seconds=5), T0 + timedelta(seconds=6))]) == 4.0


def test_totals_and_cost_of_a_run() -> None:
    calls = [
        call("llm", 0, 1, "gpt-4o-mini-2024-07-18", (1_000_000, 100_000)),
        call("tool", 1, 1.5),
        call("llm", 1.5, 2, "local-model", (10, 5)),
    ]
    prices = {"gpt-4o-mini": ModelPrice(0.15, 0.6), "gpt-4o": ModelPrice(2.5, 10)}

    totals = run_totals(calls, wall=(T0, T0 + timedelta(seconds=4)), prices=prices)

    assert (totals.model_calls, totals.tool_calls) == (2, 1)
    assert (totals.input_tokens, totals.output_tokens) == (1_000_010, 100_005)
    assert (totals.model_seconds, totals.wall_seconds) == (1.5, 4.0)
    assert totals.cost == pytest.approx(0.21)
    assert totals.unpriced_calls == 1
    assert "cost $0.210000 (1 calls unpriced)" in totals.text()
    # No price given: no cost said, rather than a cost of 0.
    assert run_totals(calls).cost is None and "cost" not in run_totals(calls).text()


def test_a_dated_release_takes_its_models_price() -> None:
    prices = {"gpt-4o": ModelPrice(2.5, 10), "gpt-4o-mini": ModelPrice(0.15, 0.6)}
    assert price_of("gpt-4o-mini-2024-07-18", prices) == prices["gpt-4o-mini"]
    assert price_of("gpt-4o-2024-08-06", prices) == prices["gpt-4o"]
    assert price_of("claude-3-5", prices) is None and price_of(None, prices) is None


def test_tokens_a_model_did_not_report_are_not_counted_as_zero() -> None:
    unreported = [call("llm", 0, 1, "scripted", (None, None)), call("tool", 1, 2)]
    totals = run_totals(unreported, prices={"scripted": ModelPrice(1.0, 1.0)})
    assert (totals.input_tokens, totals.output_tokens) == (None, None)
    assert "tokens not reported" in totals.text() and "0→0" not in totals.text()
    assert totals.as_json()["input_tokens"] is None
    assert totals.as_json()["calls_without_tokens"] == 1
    assert totals.cost is None  # nothing to price

    # Some calls said, one did not: the sums are of those that said, and that is said.
    mixed = [*unreported, call("llm", 2, 3, "gpt", (10, 5))]
    assert "tokens 10→5 (1 call not reported)" in run_totals(mixed).text()
    # A run with no model call at all used no tokens.
    assert "tokens 0→0" in run_totals([call("tool", 0, 1)]).text()
