"""The demo "counter" graph: plain numbers and lists, no messages.

Made for the thread debugger: every run writes small, readable values, so checkpoint
history, state and diffs are easy to follow.

Nodes: ``increment`` adds ``by`` to ``count``; ``record`` appends ``count`` to ``history``
and a line to ``log``. Flow: ``increment`` → ``record`` → end (two checkpoints per run
besides the input one).

Input: ``{"by": 2}`` (``by`` defaults to 1; ``count`` starts at 0). After runs with
``by`` 1 then 2 the state is ``{"count": 3, "by": 2, "history": [1, 3],
"log": ["+1 → 1", "+2 → 3"]}``.

Context (``CounterContext``): ``label``, default ``"count"``. Any other label is written
into the ``log`` lines: with ``label="total"`` the first line reads ``"+1 → total 1"``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import Field


class CounterState(TypedDict, total=False):
    count: int
    by: int
    history: Annotated[list[int], operator.add]
    log: Annotated[list[str], operator.add]


@dataclass
class CounterContext:
    label: Annotated[str, Field(description="Name of the number in log lines.")] = "count"


def increment(state: CounterState) -> CounterState:
    by = state.get("by", 1)
    return {"count": state.get("count", 0) + by, "by": by}


def record(state: CounterState, runtime: Runtime[CounterContext]) -> CounterState:
    label = (runtime.context or CounterContext()).label
    count = state.get("count", 0)
    shown = str(count) if label == "count" else f"{label} {count}"
    return {"history": [count], "log": [f"+{state.get('by', 1)} → {shown}"]}


builder = StateGraph(CounterState, context_schema=CounterContext)
builder.add_node("increment", increment)
builder.add_node("record", record)
builder.add_edge(START, "increment")
builder.add_edge("increment", "record")
builder.add_edge("record", END)

graph = builder.compile(name="counter")
