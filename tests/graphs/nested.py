"""A parent graph with the demo chat graph as a subgraph, for namespaced stream events.

Nodes: ``prepare`` (writes nothing new: it passes the messages on) then ``chat`` (the demo
chat graph, so the same inputs do the same things). With ``stream_subgraphs: true`` the
subgraph's events arrive as ``<mode>|chat:<task id>``.

Its context is the chat's, plus ``gate`` (a file path): when set, ``prepare`` waits until
that file exists (two minutes at most), so a test holds a run open until it has done its
part, however slow a loaded machine makes it (the server runs on the tests' machine).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime

from agent_tui.local.demo.chat import ChatContext
from agent_tui.local.demo.chat import graph as chat_graph


@dataclass
class NestedContext(ChatContext):
    gate: str = ""


async def prepare(state: MessagesState, runtime: Runtime[NestedContext]) -> dict[str, Any]:
    gate = runtime.context.gate if runtime.context else ""
    # A file another process writes: polled, in a thread (no blocking call), for two
    # minutes at most (a test that failed early leaves no endless run).
    for _ in range(2400 if gate else 0):
        if await asyncio.to_thread(Path(gate).exists):
            break
        await asyncio.sleep(0.05)
    return {}


builder = StateGraph(MessagesState, context_schema=NestedContext)
builder.add_node("prepare", prepare)
builder.add_node("chat", chat_graph)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "chat")
builder.add_edge("chat", END)
graph = builder.compile(name="nested")
