"""Subgraphs two levels deep, in the shape of a swarm of agents, with no model.

Top graph: ``flight_assistant`` then ``hotel_assistant``, each a subgraph of ``model`` and
``tools`` nodes (an agent's loop, the model's turns scripted): ``flight_assistant``'s
``tools`` hands over to ``hotel_assistant`` the way a swarm's handoff tool does, with a
``Command(graph=Command.PARENT)`` — so the flight subgraph's own last checkpoint still has
``tools`` pending although it is done. ``hotel_assistant`` runs ``model``, ``tools``,
``model`` again, then its ``final_report_generation`` node: a subgraph of its own
(``review``), which asks a person (``interrupt()``) when the first message says
``confirm``. Then ``research_supervisor_summary`` (a plain node with a long name) ends it.

Input ``{"messages": [{"role": "user", "content": "..."}]}``.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt


def _said(state: MessagesState, text: str) -> dict[str, Any]:
    return {"messages": [{"role": "ai", "content": text}]}


def _turns(state: MessagesState) -> int:
    return sum(1 for message in state["messages"] if getattr(message, "type", "") == "ai")


def flight_model(state: MessagesState) -> dict[str, Any]:
    return _said(state, "flight booked; handing over to the hotel desk")


def flight_tools(state: MessagesState) -> Command[Any]:
    # A swarm's handoff: go to the parent's other agent, leaving this subgraph at once.
    return Command(graph=Command.PARENT, goto="hotel_assistant", update=_said(state, "handoff"))


flight = StateGraph(MessagesState)
flight.add_node("model", flight_model)
flight.add_node("tools", flight_tools)
flight.add_edge(START, "model")
flight.add_edge("model", "tools")
flight_assistant = flight.compile(name="flight_assistant")


def review(state: MessagesState) -> dict[str, Any]:
    first = state["messages"][0]
    if "confirm" in str(getattr(first, "content", "")):
        answer = interrupt({"question": "Book the hotel? (yes/no)"})
        return _said(state, f"review: {answer}")
    return _said(state, "review: fine")


report = StateGraph(MessagesState)
report.add_node("review", review)
report.add_edge(START, "review")
report.add_edge("review", END)
final_report_generation = report.compile(name="final_report_generation")


def hotel_model(state: MessagesState) -> dict[str, Any]:
    return _said(state, f"hotel turn {_turns(state)}")


def hotel_tools(state: MessagesState) -> dict[str, Any]:
    return {"messages": [{"role": "tool", "content": "rooms free", "tool_call_id": "t1"}]}


def after_model(state: MessagesState) -> str:
    return "tools" if _turns(state) < 4 else "final_report_generation"


hotel = StateGraph(MessagesState)
hotel.add_node("model", hotel_model)
hotel.add_node("tools", hotel_tools)
hotel.add_node("final_report_generation", final_report_generation)
hotel.add_edge(START, "model")
hotel.add_conditional_edges("model", after_model, ["tools", "final_report_generation"])
hotel.add_edge("tools", "model")
hotel.add_edge("final_report_generation", END)
hotel_assistant = hotel.compile(name="hotel_assistant")


def research_supervisor_summary(state: MessagesState) -> dict[str, Any]:
    return _said(state, "all booked")


builder = StateGraph(MessagesState)
builder.add_node("flight_assistant", flight_assistant, destinations=("hotel_assistant",))
builder.add_node("hotel_assistant", hotel_assistant)
builder.add_node("research_supervisor_summary", research_supervisor_summary)
builder.add_edge(START, "flight_assistant")
builder.add_edge("hotel_assistant", "research_supervisor_summary")
builder.add_edge("research_supervisor_summary", END)
graph = builder.compile(name="deep_nested")
