"""A graph without `messages` (the shape of LangGraph's starter template, or any pipeline):
input `{"topic": str}`, output `summary`.

`research` writes `notes` (the topic, uppercased, and a long tail so the chat must cut it);
`summarize` writes `summary`: `"summary of <topic>"`.
"""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

NOTES_TAIL = " and more" * 40  # long enough that a one-line view cuts it


class PipelineInput(TypedDict):
    topic: str


class PipelineState(TypedDict, total=False):
    topic: str
    notes: str
    summary: str


def research(state: PipelineState) -> dict[str, Any]:
    return {"notes": state["topic"].upper() + NOTES_TAIL}


def summarize(state: PipelineState) -> dict[str, Any]:
    return {"summary": f"summary of {state['topic']}"}


builder = StateGraph(PipelineState, input_schema=PipelineInput)
builder.add_node("research", research)
builder.add_node("summarize", summarize)
builder.add_edge(START, "research")
builder.add_edge("research", "summarize")
builder.add_edge("summarize", END)
graph = builder.compile(name="pipeline")
