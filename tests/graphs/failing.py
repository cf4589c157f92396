"""A chat graph whose model call fails with the exception's own words, for error display.

`call_model` stands for a node that calls a model server which is down: it really posts
with httpx to a loopback port that refuses connections (a socket bound but not
listening), and the `httpx.ConnectError` propagates, its text extended with `code 7731`
so tests can find its own words (`[Errno 111] Connection refused: code 7731` on Linux).
A message containing `quota` makes it raise `QuotaExceeded("<the message>: code 7731")`
instead (a class of the graph's own: "quota exceeded" → `quota exceeded: code 7731`),
so a test can put any text in the exception.

langgraph-api sends neither message in the stream or the thread's `error` (both say `An
internal error occurred`, as for any exception outside its short list of builtins); the
failing task's `error` in the thread's state keeps the repr with the exception's words.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx
from langgraph.graph import END, START, MessagesState, StateGraph

CODE = "code 7731"


class QuotaExceeded(Exception):
    """The model provider's refusal, as a client library would raise it."""


def _said(state: MessagesState) -> str:
    messages = state.get("messages") or []
    content = getattr(messages[-1], "content", "") if messages else ""
    return content if isinstance(content, str) else str(content)


def call_model(state: MessagesState) -> dict[str, Any]:
    said = _said(state)
    if "quota" in said.lower():
        raise QuotaExceeded(f"{said}: {CODE}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: a connect is refused
        port = closed.getsockname()[1]
        try:
            httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={}, timeout=5)
        except httpx.ConnectError as error:
            raise httpx.ConnectError(f"{error}: {CODE}") from error
    raise AssertionError("a port that is not listening answered")


builder = StateGraph(MessagesState)
builder.add_node("call_model", call_model)
builder.add_edge(START, "call_model")
builder.add_edge("call_model", END)
graph = builder.compile()
