"""The demo "chat" graph: offline, deterministic, no API keys.

It exists so that agent-tui has something real to show with no project and no account,
and so that tests can assert exact texts. Every feature the chat pane displays is reachable
from a plain message.

Nodes: ``agent`` (a scripted chat model that streams its answer word by word), ``tools``
(a ``ToolNode`` with ``get_weather`` and ``calculator``) and ``approve`` (asks a human, via
``interrupt()``, before the ``deploy`` tool runs). Flow: ``agent`` → ``tools`` or ``approve``
when the model calls a tool → back to ``agent``, which answers by repeating the tool result.

What the last user message does (checked in this order, case-insensitive):

===============================  ==============================================================
Message contains                 Result
===============================  ==============================================================
a word starting with ``fail``    ``agent`` raises ``DemoFailure("You asked me to fail.")``: the
                                 stream sends ``event: error`` and the thread status is ``error``.
``deploy`` [``to <target>``]     tool call ``deploy(target)`` (default ``production``); ``approve``
                                 interrupts with ``{"action": "deploy", "target": …, "question":
                                 "Deploy to <target>? (yes/no)"}``. Resume with ``command:
                                 {"resume": "yes"}`` → ``Deployed to <target>.``; any other value
                                 (``"no"``, ``false``…) → ``Deployment to <target> cancelled.``
``weather in <city>``            tool call ``get_weather(city)`` → e.g. ``It is sunny and 21 C in
                                 Paris.`` (the same city always gets the same weather).
``calc <expr>``                  tool call ``calculator(expression)`` → ``2+2 = 4``; bad input →
                                 ``Cannot calculate 1/0: division by zero.``
``count to <n>``                 ``1 2 3 … n`` (n ≤ 2000): a long stream for cancel/rejoin.
anything else                    ``You said: <text>`` (an empty message: ``You said nothing.``).
===============================  ==============================================================

Context (``context_schema=ChatContext``; each key has a default, so an empty context works):

- ``style``: ``"plain"`` (default) or ``"pirate"``, which prefixes answers with ``Arr! ``.
- ``shout``: ``false`` (default); ``true`` upper-cases answers.
- ``token_delay_ms``: ``20`` (default); the pause before each streamed token, so a human sees
  the answer arrive. Tests pass ``0``. It applies only while a client streams ``messages``
  (``messages-tuple``); otherwise the model answers at once.

Tool-call messages are never styled; the final answer that repeats a tool result is.

Long-term memory: each city asked about (``weather in <city>``) is remembered in the
server's Store, under the namespace ``("chat", <user id or "demo">, "cities")`` and the
key ``<city in lower case>``, with the value ``{"city": "Paris", "times_asked": 2,
"last_thread_id": "…"}``, so `agent-tui store ls chat` and the `:store` screen have
something to show. With no store (the graph run outside a server) nothing is remembered
and the answers are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.config import get_config
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.types import interrupt
from pydantic import Field

from agent_tui.local.demo import replies
from agent_tui.local.demo.scripted_model import ScriptedChatModel
from agent_tui.local.demo.tools import TOOLS

_YES = {"yes", "y", "ok", "approve", "approved", "true"}


class DemoFailure(RuntimeError):
    """Raised on purpose, to show how a failed run looks."""


@dataclass
class ChatContext:
    style: Annotated[replies.Style, Field(description="How the assistant talks.")] = "plain"
    shout: Annotated[bool, Field(description="Answer in capital letters.")] = False
    token_delay_ms: Annotated[
        int, Field(ge=0, description="Pause before each streamed token, in milliseconds.")
    ] = 20


async def agent(state: MessagesState, runtime: Runtime[ChatContext]) -> dict[str, list[AIMessage]]:
    # The server passes no context at all when neither the assistant nor the run has one.
    context = runtime.context or ChatContext()
    last = state["messages"][-1] if state["messages"] else None
    if isinstance(last, HumanMessage) and replies.wants_failure(last.text):
        raise DemoFailure("You asked me to fail.")
    model = ScriptedChatModel(
        style=context.style, shout=context.shout, token_delay=context.token_delay_ms / 1000
    )
    reply = await model.ainvoke(state["messages"])
    if runtime.store is not None:
        for call in reply.tool_calls:
            if call["name"] == "get_weather":
                await remember_city(runtime.store, str(call["args"].get("city", "")))
    return {"messages": [reply]}


def cities_namespace() -> tuple[str, str, str]:
    """Where the cities asked about are kept: per user when the server knows one."""
    configurable = get_config().get("configurable", {})
    user = configurable.get("langgraph_auth_user_id") or "demo"
    return ("chat", str(user), "cities")


async def remember_city(store: BaseStore, city: str) -> None:
    """Count one more question about `city`; the key is the city in lower case, so
    "paris" and "Paris" are one memory."""
    if not city:
        return
    namespace, key = cities_namespace(), city.lower()
    known = await store.aget(namespace, key)
    times = known.value.get("times_asked") if known is not None else None
    thread_id = get_config().get("configurable", {}).get("thread_id")
    count = times + 1 if isinstance(times, int) else 1  # (an item someone else edited)
    value = {"city": city, "times_asked": count, "last_thread_id": thread_id}
    await store.aput(namespace, key, value)


def approve(state: MessagesState) -> dict[str, list[ToolMessage]]:
    """Run the ``deploy`` tool call only if a human says yes."""
    call = _last_tool_calls(state)[0]
    target = str(call["args"].get("target", "production"))
    answer = interrupt(
        {"action": "deploy", "target": target, "question": f"Deploy to {target}? (yes/no)"}
    )
    approved = answer is True or str(answer).strip().lower() in _YES
    result = f"Deployed to {target}." if approved else f"Deployment to {target} cancelled."
    return {"messages": [ToolMessage(content=result, tool_call_id=call["id"], name="deploy")]}


def route_after_agent(state: MessagesState) -> Literal["tools", "approve", "__end__"]:
    calls = _last_tool_calls(state)
    if not calls:
        return "__end__"  # END, spelled as its literal value for the type checker
    return "approve" if calls[0]["name"] == "deploy" else "tools"


def _last_tool_calls(state: MessagesState) -> list[ToolCall]:
    last = state["messages"][-1]
    return list(last.tool_calls) if isinstance(last, AIMessage) else []


builder = StateGraph(MessagesState, context_schema=ChatContext)
builder.add_node("agent", agent)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_node("approve", approve)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", route_after_agent)
builder.add_edge("tools", "agent")
builder.add_edge("approve", "agent")

graph = builder.compile(name="chat")
