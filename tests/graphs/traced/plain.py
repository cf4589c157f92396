"""A graph that calls no model and no tool: it answers with a fixed message. For the test
that a run with no call to count ends without a totals line."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def answer(state: MessagesState) -> dict[str, object]:
    return {"messages": [AIMessage("Nothing to look up.")]}


builder = StateGraph(MessagesState)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
graph = builder.compile()
