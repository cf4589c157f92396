"""A weather agent on a real chat model class (`ChatOpenAI`), for the trace tests: its
model is the tests' OpenAI stand-in (`tests/support/openai_standin.py`), named by
``OPENAI_BASE_URL`` (a provider's setting: it reaches the server from the caller's
environment too). The model streams, calls `lookup_weather`, then answers. A run's
``configurable`` may name the model (``model_name``: any text, as a project could) and
make the tool fail with its own words (``weather_error``)."""

from __future__ import annotations

import os

from langchain_core.messages import SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

SYSTEM_PROMPT = "You are a weather bot. Use lookup_weather."


@tool
def lookup_weather(city: str, config: RunnableConfig) -> str:
    """Today's weather in a city."""
    error = config.get("configurable", {}).get("weather_error")
    if error:
        raise ValueError(error)
    return f"Sunny in {city}, 21 C"


def agent(state: MessagesState, config: RunnableConfig) -> dict[str, object]:
    model = ChatOpenAI(
        model=config.get("configurable", {}).get("model_name", "gpt-standin-mini"),
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        temperature=0.2,
        streaming=True,
        stream_usage=True,
    ).bind_tools([lookup_weather])
    answer = model.invoke([SystemMessage(SYSTEM_PROMPT), *state["messages"]], config)
    return {"messages": [answer]}


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("tools", ToolNode([lookup_weather]))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
graph = builder.compile()
