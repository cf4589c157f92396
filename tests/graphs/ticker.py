"""A slow graph for run control tests (cancel, rejoin, resume).

`tick` emits `{"tick": i}` as a custom event `ticks` times (context, default 20), sleeping
`delay` seconds (default 0.05) between them, then writes `{"done": ticks}` — or, with
`then` set, first asks a question (`"interrupt"`) or raises (`"fail"`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt


class TickerState(TypedDict, total=False):
    done: int


@dataclass
class TickerContext:
    ticks: int = 20
    delay: float = 0.05
    then: Literal["done", "interrupt", "fail"] = "done"


async def tick(state: TickerState, runtime: Runtime[TickerContext]) -> dict[str, Any]:
    write = get_stream_writer()
    for i in range(runtime.context.ticks):
        write({"tick": i})
        await asyncio.sleep(runtime.context.delay)
    if runtime.context.then == "interrupt":
        interrupt({"question": "Go on?"})
    elif runtime.context.then == "fail":
        raise RuntimeError("the ticker was told to fail")
    return {"done": runtime.context.ticks}


builder = StateGraph(TickerState, context_schema=TickerContext)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_edge("tick", END)
graph = builder.compile()
