"""A slow graph for run control tests (cancel, rejoin, resume).

`tick` emits `{"tick": i}` as a custom event `ticks` times (context, default 20), sleeping
`delay` seconds (default 0.05) between them, then writes `{"done": ticks}` — or, with
`then` set, first asks a question (`"interrupt"`) or raises (`"fail"`). With `gate` set (a
file path), it ticks on past `ticks` until that file exists (two minutes at most): a test
holds the run open until it has done its part, however slow a loaded machine makes it
(the server runs on the tests' machine).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
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
    gate: str = ""


GATE_LIMIT = 120.0


async def _exists(path: Path) -> bool:
    return await asyncio.to_thread(path.exists)  # no blocking call on the server's loop


async def tick(state: TickerState, runtime: Runtime[TickerContext]) -> dict[str, Any]:
    write = get_stream_writer()
    gate = Path(runtime.context.gate) if runtime.context.gate else None
    i = 0
    held = 0.0  # at most GATE_LIMIT seconds: a test that failed early leaves no endless run
    while i < runtime.context.ticks or (
        gate is not None and held < GATE_LIMIT and not await _exists(gate)
    ):
        write({"tick": i})
        await asyncio.sleep(runtime.context.delay)
        held += runtime.context.delay
        i += 1
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
