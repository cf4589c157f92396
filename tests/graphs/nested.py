"""A parent graph with the demo chat graph as a subgraph, for namespaced stream events.

Nodes: ``prepare`` (writes nothing new: it passes the messages on) then ``chat`` (the demo
chat graph, so the same inputs do the same things). With ``stream_subgraphs: true`` the
subgraph's events arrive as ``<mode>|chat:<task id>``.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, MessagesState, StateGraph

from agent_tui.local.demo.chat import ChatContext
from agent_tui.local.demo.chat import graph as chat_graph


def prepare(state: MessagesState) -> dict[str, Any]:
    return {}


builder = StateGraph(MessagesState, context_schema=ChatContext)
builder.add_node("prepare", prepare)
builder.add_node("chat", chat_graph)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "chat")
builder.add_edge("chat", END)
graph = builder.compile(name="nested")
