"""Two questions at once: `ask_a` and `ask_b` run in parallel and each calls
`interrupt()`, so a thread waits on two interrupts, answered one by one by their ids.
Each writes what it was told to `answers` ("a=<answer>")."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class QuestionsState(TypedDict, total=False):
    answers: Annotated[list[str], operator.add]


def ask(name: str) -> Any:
    def node(state: QuestionsState) -> dict[str, Any]:
        answer = interrupt({"question": f"Answer for {name}?"})
        return {"answers": [f"{name}={answer}"]}

    return node


builder = StateGraph(QuestionsState)
builder.add_node("ask_a", ask("a"))
builder.add_node("ask_b", ask("b"))
builder.add_edge(START, "ask_a")
builder.add_edge(START, "ask_b")
builder.add_edge("ask_a", END)
builder.add_edge("ask_b", END)
graph = builder.compile()
