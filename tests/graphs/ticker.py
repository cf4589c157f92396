"""A slow graph for run control tests (cancel, rejoin, resume).

`tick` emits `{"tick": i}` as a custom event `ticks` times (context, default 20), sleeping
`delay` seconds (default 0.05) between them, then writes `{"done": ticks}`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime


class TickerState(TypedDict, total=False):
    done: int


@dataclass
class TickerContext:
    ticks: int = 20
    delay: float = 0.05


async def tick(state: TickerState, runtime: Runtime[TickerContext]) -> dict[str, Any]:
    write = get_stream_writer()
    for i in range(runtime.context.ticks):
        write({"tick": i})
        await asyncio.sleep(runtime.context.delay)
    return {"done": runtime.context.ticks}


builder = StateGraph(TickerState, context_schema=TickerContext)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_edge("tick", END)
graph = builder.compile()
