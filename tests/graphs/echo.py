"""An echo whose answer depends on the assistant's context, for experiments across
versions: `mode` "upper" answers the last human message in upper case, "lower" in lower
case, "same" (the default) as it is. A message starting with `boom` fails the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime


@dataclass
class EchoContext:
    mode: str = "same"


def answer(state: MessagesState, runtime: Runtime[EchoContext]) -> dict[str, Any]:
    text = str(state["messages"][-1].content)
    if text.startswith("boom"):
        raise ValueError(f"asked to fail: {text}")
    mode = runtime.context.mode
    said = text.upper() if mode == "upper" else text.lower() if mode == "lower" else text
    return {"messages": [AIMessage(said)]}


builder = StateGraph(MessagesState, context_schema=EchoContext)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
