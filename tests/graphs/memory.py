"""The memory agent's shape (langchain-ai/memory-agent), offline: a tool that writes the Store.

`call_model` answers the last human message: "Remember that …" calls the tool
`upsert_memory(content=…)`; after a tool result it answers `Noted: <content>.`; anything
else gets `You said: <text>`. `store_memory` runs the calls itself (no `ToolNode`) and, as
the template does, returns its tool messages as plain dicts with no id (the server names
them when it writes the state), each `Stored memory <key>`. Flow: `call_model` →
`store_memory` when it calls a tool → back to `call_model`.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime

PREFIX = "remember that "


def call_model(state: MessagesState) -> dict[str, list[AIMessage]]:
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        call = next(m for m in reversed(state["messages"]) if isinstance(m, AIMessage))
        content = call.tool_calls[0]["args"]["content"]
        return {"messages": [AIMessage(content=f"Noted: {content}.")]}
    text = last.text if isinstance(last, HumanMessage) else ""
    if text.lower().startswith(PREFIX):
        content = text[len(PREFIX) :].strip()
        upsert = ToolCall(name="upsert_memory", args={"content": content}, id="call-memory")
        return {"messages": [AIMessage(content="", tool_calls=[upsert])]}
    return {"messages": [AIMessage(content=f"You said: {text}")]}


async def store_memory(state: MessagesState, runtime: Runtime[Any]) -> dict[str, Any]:
    last = state["messages"][-1]
    assert isinstance(last, AIMessage)
    results = []
    for index, call in enumerate(last.tool_calls):
        key = f"memory-{len(state['messages'])}-{index}"
        if runtime.store is not None:
            await runtime.store.aput(("memories",), key, {"content": call["args"]["content"]})
        results.append(
            {"role": "tool", "content": f"Stored memory {key}", "tool_call_id": call["id"]}
        )
    return {"messages": results}


def route_message(state: MessagesState) -> Literal["store_memory", "__end__"]:
    last = state["messages"][-1]
    return "store_memory" if isinstance(last, AIMessage) and last.tool_calls else "__end__"


builder = StateGraph(MessagesState)
builder.add_node("call_model", call_model)
builder.add_node("store_memory", store_memory)
builder.add_edge(START, "call_model")
builder.add_conditional_edges("call_model", route_message)
builder.add_edge("store_memory", "call_model")

graph = builder.compile(name="memory")
