"""A graph that makes many checkpoints quickly, for history paging and long-thread tests.

Input ``{"steps": N}``: the ``tick`` node runs N times, one superstep each, so a run on a
new thread makes N + 2 checkpoints (steps -1 and 0 for the input, then one per tick; about
6 ms each). State: ``i`` (ticks so far), ``steps`` and ``seen`` (each tick appends ``i``).
The graph's recursion limit is raised to 100 000, so no run config is needed for long runs.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import START, StateGraph


class LoopState(TypedDict, total=False):
    i: int
    steps: int
    seen: Annotated[list[int], operator.add]


def tick(state: LoopState) -> dict[str, Any]:
    i = state.get("i", 0) + 1
    return {"i": i, "seen": [i]}


def again(state: LoopState) -> Literal["tick", "__end__"]:
    return "tick" if state.get("i", 0) < state.get("steps", 1) else "__end__"


builder = StateGraph(LoopState)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", again)
graph = builder.compile(name="loop").with_config(recursion_limit=100_000)
