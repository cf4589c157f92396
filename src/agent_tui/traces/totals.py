"""A run's totals: its model and tool calls, tokens, the time its model calls took against
its wall time, and what they cost where the config gives a price for the model
(``[traces.prices]``; agent-tui ships none). What the runs screen and the end of a chat
run show; `agent-tui traces show` prints it.

A model that reports no token usage (agent-tui's demo model, many local servers) is not
a model that used none: its calls' tokens are unknown (None, null in JSON, "not
reported" in words), never 0."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from agent_tui.traces import run_fields


class CallLike(Protocol):
    """A call as `calls.CallSummary` and `query.TracedRun` both give it."""

    @property
    def run_type(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def start_time(self) -> datetime | None: ...
    @property
    def end_time(self) -> datetime | None: ...
    @property
    def input_tokens(self) -> int | None: ...
    @property
    def output_tokens(self) -> int | None: ...


NOT_REPORTED = "not reported"


def tokens_pair(given: int | None, made: int | None) -> str | None:
    """Input→output tokens (``21→7``, ``?→7`` when only one is known); None when the call
    reported neither."""
    if given is None and made is None:
        return None
    return f"{'?' if given is None else given}→{'?' if made is None else made}"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per million tokens (``[traces.prices."gpt-4o-mini"]``)."""

    input_per_million: float
    output_per_million: float


@dataclass(frozen=True, slots=True)
class RunTotals:
    model_calls: int
    tool_calls: int
    input_tokens: int | None
    """Of the model calls that reported it; None when none did (unknown, not 0)."""
    output_tokens: int | None
    model_seconds: float
    """Time while at least one model call ran (calls at once count once)."""
    wall_seconds: float | None
    cost: float | None
    """Of the priced calls; None when no call's model has a price."""
    unpriced_calls: int
    """Model calls whose model has no price (their cost is not in ``cost``)."""
    calls_without_tokens: int = 0
    """Model calls that reported no token usage (their tokens are not in the sums)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "model_seconds": round(self.model_seconds, 6),
            "wall_seconds": None if self.wall_seconds is None else round(self.wall_seconds, 6),
            "cost_usd": self.cost,
            "unpriced_calls": self.unpriced_calls,
            "calls_without_tokens": self.calls_without_tokens,
        }

    def tokens_text(self) -> str:
        """``55→16``; ``not reported`` when no model call said its tokens; the calls left
        out when some did not (``55→16 (1 call not reported)``)."""
        pair = tokens_pair(self.input_tokens, self.output_tokens)
        if pair is None:
            return NOT_REPORTED if self.calls_without_tokens else "0→0"
        missing = self.calls_without_tokens
        if missing:
            pair += f" ({missing} call{'s' * (missing != 1)} {NOT_REPORTED})"
        return pair

    def text(self) -> str:
        parts = [
            f"{self.model_calls} model call{'s' * (self.model_calls != 1)}",
            f"{self.tool_calls} tool call{'s' * (self.tool_calls != 1)}",
            f"tokens {self.tokens_text()}",
        ]
        wall = f" of {self.wall_seconds:.2f}s" if self.wall_seconds is not None else ""
        parts.append(f"model time {self.model_seconds:.2f}s{wall}")
        if self.cost is not None:
            unpriced = f" ({self.unpriced_calls} calls unpriced)" if self.unpriced_calls else ""
            parts.append(f"cost ${self.cost:.6f}{unpriced}")
        return ", ".join(parts)


def configured_prices() -> dict[str, ModelPrice]:
    """The prices of ``[traces.prices]`` in the config (none when it has none)."""
    from agent_tui.settings.traces import trace_settings

    return {name: ModelPrice(*price) for name, price in trace_settings().prices.items()}


def busy_seconds(spans: Sequence[tuple[datetime, datetime]]) -> float:
    """Seconds covered by the union of ``spans``."""
    total = 0.0
    end_so_far: datetime | None = None
    for start, end in sorted(spans):
        if end_so_far is None or start > end_so_far:
            total += (end - start).total_seconds()
            end_so_far = end
        elif end > end_so_far:
            total += (end - end_so_far).total_seconds()
            end_so_far = end
    return total


def price_of(model: str | None, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of ``model``: its own, else the longest name that starts it (a dated
    release, ``gpt-4o-mini-2024-07-18``, takes ``gpt-4o-mini``'s)."""
    if not model:
        return None
    if model in prices:
        return prices[model]
    starts = [name for name in prices if model.startswith(name)]
    return prices[max(starts, key=len)] if starts else None


def run_totals(
    calls: Sequence[CallLike],
    *,
    wall: tuple[datetime | None, datetime | None] = (None, None),
    prices: Mapping[str, ModelPrice] | None = None,
) -> RunTotals:
    """Totals of ``calls`` (a run's, `calls.list_calls`); ``wall``: the run's start and end."""
    models = [call for call in calls if call.run_type == "llm"]
    spans = [
        (c.start_time, c.end_time)
        for c in models
        if c.start_time is not None and c.end_time is not None
    ]
    cost: float | None = None
    unpriced = 0
    for call in models:
        price = price_of(call.model, prices or {})
        if price is None or (call.input_tokens is None and call.output_tokens is None):
            unpriced += 1  # no price, or no tokens to price: not in the cost
            continue
        cost = (cost or 0.0) + (
            (call.input_tokens or 0) * price.input_per_million
            + (call.output_tokens or 0) * price.output_per_million
        ) / 1_000_000
    start, end = wall
    return RunTotals(
        model_calls=len(models),
        tool_calls=sum(call.run_type == "tool" for call in calls),
        input_tokens=_known_sum([call.input_tokens for call in models]),
        output_tokens=_known_sum([call.output_tokens for call in models]),
        model_seconds=busy_seconds(spans),
        wall_seconds=(end - start).total_seconds() if start and end else None,
        cost=cost,
        unpriced_calls=unpriced if cost is not None else 0,
        calls_without_tokens=sum(
            call.input_tokens is None and call.output_tokens is None for call in models
        ),
    )


def _known_sum(values: Sequence[int | None]) -> int | None:
    """The sum of the known ``values``; None when none is known (0 for no calls at all)."""
    known = [value for value in values if value is not None]
    return sum(known) if known or not values else None


def totals_of_runs(
    run_ids: Sequence[str],
    *,
    prices: Mapping[str, ModelPrice] | None = None,
    store_path: Path | None = None,
) -> dict[str, RunTotals]:
    """The totals of the agent server's runs ``run_ids`` that the trace store (default:
    the user's) has a trace of; the others are left out (not traced here). Blocking: call
    it from a thread."""
    from agent_tui.traces.calls import list_calls
    from agent_tui.traces.query import StoreUnreadable, open_for_reading

    try:
        store = open_for_reading(store_path)
    except StoreUnreadable:
        return {}
    if store is None:
        return {}
    found: dict[str, RunTotals] = {}
    try:
        for run_id in run_ids:
            with store.reading() as db:
                root = db.execute(
                    "SELECT start_time, end_time FROM runs WHERE (id = ? OR graph_run_id = ?)"
                    " AND parent_run_id IS NULL LIMIT 1",
                    (run_id, run_id),
                ).fetchone()
            if root is None:
                continue
            calls = list_calls(store, run_id=run_id)
            wall = (run_fields.parse_time(root[0]), run_fields.parse_time(root[1]))
            found[run_id] = run_totals(calls, wall=wall, prices=prices)
    except sqlite3.Error:
        pass  # a store being rewritten: what was read stands
    finally:
        store.close()
    return found
