"""A graph that calls a real chat model class (`ChatOpenAI`, streaming) ``calls`` times
in a row, for benchmarks/traced_run.py; its model is the tests' OpenAI stand-in, named by
``OPENAI_BASE_URL``. The state counts the answers, so a reader can check every call ran."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime


@dataclass
class CallsContext:
    calls: int = 200


class CallsState(TypedDict, total=False):
    answers: int


def agent(state: CallsState, runtime: Runtime[CallsContext]) -> CallsState:
    model = ChatOpenAI(
        model="gpt-standin-mini",
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        streaming=True,
        stream_usage=True,
    )
    answers = 0
    for number in range(runtime.context.calls):
        model.invoke([SystemMessage("Be brief."), HumanMessage(f"Call {number}?")])
        answers += 1
    return {"answers": answers}


builder = StateGraph(CallsState, context_schema=CallsContext)
builder.add_node("agent", agent)
builder.add_edge(START, "agent")
graph = builder.compile()
