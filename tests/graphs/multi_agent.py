"""Multi-agent graphs as public projects build them, driven by a scripted chat model.

- ``swarm``: the real ``langgraph_swarm``: ``flight_assistant`` (active first) and
  ``hotel_assistant``, each a ``create_agent`` agent (a subgraph) with a handoff tool to
  the other; a handoff goes to the parent graph with ``Command(graph=Command.PARENT)``.
- ``supervisor``: the real ``langgraph_supervisor``: a ``supervisor`` agent that hands
  the question to ``researcher`` (an agent with a ``search`` tool), who hands back.
- ``deep``: a hand-built graph with two levels of subgraphs sharing ``messages``:
  ``lead`` → ``team`` (``plan`` → ``worker`` (``agent`` ⇄ ``tools``)); ``lead`` (a
  ``create_agent`` agent) hands over to ``team`` with a tool of its own that writes to
  the parent graph with ``Command(graph=Command.PARENT)``, as hand-built projects do.
- ``brief``: shaped as open_deep_research is: a root node asks the model for a research
  brief and keeps it out of ``messages`` (in ``brief``), writing a human message for its
  researchers to another key (``supervisor_messages``); the last node's report goes to
  ``messages``. The model's tokens and that human message still stream (``messages``
  mode streams every message a node returns, whatever its key).
- ``parallel``: shaped as open_deep_research's supervisor is: ``plan`` (its model's tool call
  kept in ``notes``) sends two topics to
  ``researcher`` (a subgraph) at once, with two ``Send``s; each branch's ``summarize``
  streams its model's notes (kept in ``notes``, out of ``messages``) word by word, with a
  short wait before each word, so the two streams interleave; ``report`` ends the run.
  Its context's ``gate`` (a file path), when set, holds ``summarize`` until that file
  exists (two minutes at most), so a test sees the branches running.

What a message asks (the last human message, case-insensitive):

- the swarm: ``hotel in <city>``: the flight assistant hands over to the hotel assistant,
  which calls ``book_hotel(city)`` (``Booked a room in <City>.``) and answers ``Your room in
  <City> is booked.``; anything else: the flight assistant answers ``No flights today.``
- the supervisor: anything: ``search(query)`` by the researcher (``Found 3 results for
  <text>.``), its answer ``The research is done: found 3 results.``, then the supervisor's
  ``Here is what the researcher found.``
- ``brief``: the brief ``Brief: <text>``, the report ``Report on <text>.``
- ``parallel``: the plan's call ``research(topics)``, the notes ``Notes on rust: it is fast, and it is safe.`` and ``Notes on go:
  …``, then the report ``Report on <text>.``
- ``deep``: the lead's ``transfer_to_team``, then the worker's ``lookup(topic)`` (``<topic> is well known.``) and the answer ``Looked it up:
  <topic> is well known.``

The model is the demo's scripted model with other rules: its reply depends on the
conversation only (tool call ids on its length), so a run done again is the same run.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import InjectedState, ToolNode, tools_condition
from langgraph.runtime import Runtime
from langgraph.types import Command, Send
from langgraph_supervisor import create_supervisor
from langgraph_swarm import create_handoff_tool, create_swarm

from agent_tui.local.demo.replies import tool_call
from agent_tui.local.demo.scripted_model import ScriptedChatModel

Rules = Callable[[Sequence[BaseMessage]], AIMessage]
_HOTEL = re.compile(r"\bhotel\s+in\s+(?P<city>[a-z]+)", re.IGNORECASE)


def _last_human(messages: Sequence[BaseMessage]) -> str:
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    return humans[-1].text.strip() if humans else ""


def _ask(name: str, args: dict[str, Any], messages: Sequence[BaseMessage]) -> AIMessage:
    return AIMessage(content="", tool_calls=[tool_call(name, args, turn=len(messages))])


def flight_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], HumanMessage) and _HOTEL.search(messages[-1].text):
        return _ask("transfer_to_hotel_assistant", {}, messages)
    return AIMessage(content="No flights today.")


def hotel_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    last = messages[-1]
    match = _HOTEL.search(_last_human(messages))
    city = match.group("city").title() if match else "Nowhere"
    if isinstance(last, ToolMessage) and last.name == "book_hotel":
        return AIMessage(content=f"Your room in {city} is booked.")
    return _ask("book_hotel", {"city": city}, messages)


def supervisor_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], HumanMessage):
        return _ask("transfer_to_researcher", {}, messages)
    return AIMessage(content="Here is what the researcher found.")


def researcher_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage) and messages[-1].name == "search":
        return AIMessage(content="The research is done: found 3 results.")
    return _ask("search", {"query": _last_human(messages)}, messages)


def lead_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], HumanMessage):
        return _ask("transfer_to_team", {}, messages)
    return AIMessage(content="The worker is on it.")


def worker_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if isinstance(last, ToolMessage) and last.name == "lookup":
        return AIMessage(content=f"Looked it up: {last.text}")
    return _ask("lookup", {"topic": _last_human(messages)}, messages)


def briefer_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    return AIMessage(content=f"Brief: {_last_human(messages)}")


def reporter_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    return AIMessage(content=f"Report on {_last_human(messages)}.")


def planner_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    return _ask("research", {"topics": list(PARALLEL_TOPICS)}, messages)


def summarizer_rules(messages: Sequence[BaseMessage]) -> AIMessage:
    return AIMessage(content=f"Notes on {_last_human(messages)}: it is fast, and it is safe.")


RULES: dict[str, Rules] = {
    "planner": planner_rules,
    "summarizer": summarizer_rules,
    "briefer": briefer_rules,
    "reporter": reporter_rules,
    "flight_assistant": flight_rules,
    "hotel_assistant": hotel_rules,
    "supervisor": supervisor_rules,
    "researcher": researcher_rules,
    "lead": lead_rules,
    "worker": worker_rules,
}


class AgentModel(ScriptedChatModel):
    """The scripted model of one agent (`RULES[agent]`); tools bind to nothing: the
    rules know which tool to call."""

    agent: str

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        return RULES[self.agent](messages)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> AgentModel:
        return self


@tool
def book_hotel(city: str) -> str:
    """Book a hotel room in a city."""
    return f"Booked a room in {city}."


@tool
def search(query: str) -> str:
    """Search the web."""
    return f"Found 3 results for {query}."


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"{topic} is well known."


flight_assistant = create_agent(
    AgentModel(agent="flight_assistant"),
    tools=[create_handoff_tool(agent_name="hotel_assistant")],
    name="flight_assistant",
)
hotel_assistant = create_agent(
    AgentModel(agent="hotel_assistant"),
    tools=[book_hotel, create_handoff_tool(agent_name="flight_assistant")],
    name="hotel_assistant",
)
swarm = create_swarm(
    [flight_assistant, hotel_assistant], default_active_agent="flight_assistant"
).compile(name="swarm")

researcher = create_agent(AgentModel(agent="researcher"), tools=[search], name="researcher")
supervisor = create_supervisor([researcher], model=AgentModel(agent="supervisor")).compile(
    name="supervisor"
)


@tool("transfer_to_team")
def transfer_to_team(
    state: Annotated[Any, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]
) -> Command[Any]:
    """Hand the question to the team."""
    # As a hand-built project writes a handoff: the message goes to the parent graph,
    # which names it (it has no id until then).
    message = ToolMessage(
        "Successfully transferred to team", name="transfer_to_team", tool_call_id=tool_call_id
    )
    return Command(
        goto="team", graph=Command.PARENT, update={"messages": [*state["messages"], message]}
    )


async def worker_agent(state: MessagesState) -> dict[str, list[AIMessage]]:
    return {"messages": [await AgentModel(agent="worker").ainvoke(state["messages"])]}


def plan(state: MessagesState) -> dict[str, Any]:
    return {}


lead = create_agent(AgentModel(agent="lead"), tools=[transfer_to_team], name="lead")

worker = StateGraph(MessagesState)
worker.add_node("agent", worker_agent)
worker.add_node("tools", ToolNode([lookup]))
worker.add_edge(START, "agent")
worker.add_conditional_edges("agent", tools_condition)
worker.add_edge("tools", "agent")

team = StateGraph(MessagesState)
team.add_node("plan", plan)
team.add_node("worker", worker.compile(name="worker"))
team.add_edge(START, "plan")
team.add_edge("plan", "worker")

deep_builder = StateGraph(MessagesState)
deep_builder.add_node("lead", lead, destinations=("team",))
deep_builder.add_node("team", team.compile(name="team"))
deep_builder.add_edge(START, "lead")
deep = deep_builder.compile(name="deep")


class BriefState(MessagesState):
    brief: str
    supervisor_messages: Annotated[list[BaseMessage], add_messages]


async def write_brief(state: BriefState) -> dict[str, Any]:
    reply = await AgentModel(agent="briefer").ainvoke(state["messages"])
    return {"brief": reply.text, "supervisor_messages": [HumanMessage(content=reply.text)]}


async def write_report(state: BriefState) -> dict[str, Any]:
    return {"messages": [await AgentModel(agent="reporter").ainvoke(state["messages"])]}


brief_builder = StateGraph(BriefState)
brief_builder.add_node("write_brief", write_brief)
brief_builder.add_node("write_report", write_report)
brief_builder.add_edge(START, "write_brief")
brief_builder.add_edge("write_brief", "write_report")
brief = brief_builder.compile(name="brief")


PARALLEL_TOPICS = ("rust", "go")
WORD_DELAY = 0.05  # seconds before each word of the notes: the two branches take turns


class ResearchState(TypedDict):
    topic: str
    notes: Annotated[list[BaseMessage], add_messages]


class ParallelState(MessagesState):
    notes: Annotated[list[BaseMessage], add_messages]


@dataclass
class GateContext:
    gate: str = ""


async def summarize(state: ResearchState, runtime: Runtime[GateContext]) -> dict[str, Any]:
    gate = runtime.context.gate if runtime.context else ""
    for _ in range(2400 if gate else 0):  # a test that failed early leaves no endless run
        if await asyncio.to_thread(Path(gate).exists):
            break
        await asyncio.sleep(0.05)
    model = AgentModel(agent="summarizer", token_delay=WORD_DELAY)
    return {"notes": [await model.ainvoke([HumanMessage(content=state["topic"])])]}


async def plan_topics(state: ParallelState) -> dict[str, Any]:
    # Its tool call is kept out of `messages` too, as open_deep_research's supervisor's.
    return {"notes": [await AgentModel(agent="planner").ainvoke(state["messages"])]}


def send_topics(state: ParallelState) -> list[Send]:
    return [Send("researcher", {"topic": topic}) for topic in PARALLEL_TOPICS]


research = StateGraph(ResearchState, context_schema=GateContext)
research.add_node("summarize", summarize)
research.add_edge(START, "summarize")

parallel_builder = StateGraph(ParallelState, context_schema=GateContext)
parallel_builder.add_node("plan", plan_topics)
parallel_builder.add_node("researcher", research.compile(name="researcher"))
parallel_builder.add_node("report", write_report)
parallel_builder.add_edge(START, "plan")
parallel_builder.add_conditional_edges("plan", send_topics, ["researcher"])
parallel_builder.add_edge("researcher", "report")
parallel = parallel_builder.compile(name="parallel")
