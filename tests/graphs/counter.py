"""A tiny non-chat graph for client and checkpoint tests.

State: `n` (int) and `items` (a list that grows by addition). `inc` adds the context's
`step` (default 1) to `n` and appends the old `n` to `items`; `dbl` doubles `n` when the
context's `double` is true (the default). So input `{"n": 5}` ends with `n == 12`, and
with context `{"step": 10, "double": False}` with `n == 15`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime


class CounterState(TypedDict, total=False):
    n: int
    items: Annotated[list[int], operator.add]


@dataclass
class CounterContext:
    step: int = 1
    double: bool = True


def inc(state: CounterState, runtime: Runtime[CounterContext]) -> dict[str, Any]:
    n = state.get("n", 0)
    return {"n": n + runtime.context.step, "items": [n]}


def dbl(state: CounterState, runtime: Runtime[CounterContext]) -> dict[str, Any]:
    if not runtime.context.double:
        return {}
    return {"n": state["n"] * 2}


builder = StateGraph(CounterState, context_schema=CounterContext)
builder.add_node("inc", inc)
builder.add_node("dbl", dbl)
builder.add_edge(START, "inc")
builder.add_edge("inc", "dbl")
builder.add_edge("dbl", END)
graph = builder.compile()
