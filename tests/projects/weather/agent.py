"""A graph that needs its project's environment: `tinyweather` is installed only there."""

from __future__ import annotations

import os
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from tinyweather import forecast


class State(TypedDict, total=False):
    city: str
    answer: str
    greeting: str


def answer(state: State) -> State:
    return {
        "answer": forecast(state.get("city", "Paris")),
        "greeting": os.environ.get("WEATHER_GREETING", "unset"),
    }


builder = StateGraph(State)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
