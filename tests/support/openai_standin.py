"""An OpenAI-compatible chat completions server for the tests: what a real chat model
class (`ChatOpenAI`) calls, answering from a script instead of a model.

``POST /v1/chat/completions``, streamed (server-sent events, ``data: [DONE]`` last) or
not, with token usage (in the last chunk when streamed). The script is a weather agent's:
asked anything, it calls the tool ``lookup_weather`` for Paris; given the tool's result,
it answers in words. Each request's body is kept (``requests``) so a test can compare
what the model was sent with what the trace says it was sent.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent_tui.local.trace_collector.server import bind_socket

MODEL = "gpt-standin-mini"
TOOL_CALL_USAGE = {"prompt_tokens": 21, "completion_tokens": 7, "total_tokens": 28}
ANSWER_USAGE = {"prompt_tokens": 34, "completion_tokens": 9, "total_tokens": 43}
ANSWER = "It is sunny in Paris today."
TOOL_ARGUMENTS = '{"city": "Paris"}'


def _reply(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, int], str]:
    """The message to send back, its usage and its finish reason."""
    last = body["messages"][-1]
    if last.get("role") == "tool":
        return {"role": "assistant", "content": ANSWER}, ANSWER_USAGE, "stop"
    call = {
        "id": "call_weather_1",
        "type": "function",
        "function": {"name": "lookup_weather", "arguments": TOOL_ARGUMENTS},
    }
    return (
        {"role": "assistant", "content": None, "tool_calls": [call]},
        TOOL_CALL_USAGE,
        "tool_calls",
    )


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    data = {
        "id": "chatcmpl-standin",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(data)}\n\n".encode()


async def _stream(
    message: dict[str, Any], usage: dict[str, int], finish: str, delay: float
) -> AsyncIterator[bytes]:
    yield _chunk({"role": "assistant", "content": ""})
    if message.get("tool_calls"):
        call = message["tool_calls"][0]
        head = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
        yield _chunk({"tool_calls": [{"index": 0, **head}]})
        arguments = call["function"]["arguments"]
        for start in range(0, len(arguments), 6):
            piece = arguments[start : start + 6]
            await asyncio.sleep(delay)
            yield _chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
    else:
        for word in message["content"].split(" "):
            await asyncio.sleep(delay)
            yield _chunk({"content": word + " "})
    yield _chunk({}, finish)
    usage_chunk = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "model": MODEL}
    yield f"data: {json.dumps({**usage_chunk, 'choices': [], 'usage': usage})}\n\n".encode()
    yield b"data: [DONE]\n\n"


class OpenAIStandIn:
    """The server, on a free port of 127.0.0.1 in a thread (``url`` ends in ``/v1``).
    ``token_delay``: seconds before each streamed chunk (a model's pace; 0: at once)."""

    def __init__(self, token_delay: float = 0.0) -> None:
        self.token_delay = token_delay
        self.requests: list[dict[str, Any]] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        message, usage, finish = _reply(body)
        if body.get("stream"):
            return StreamingResponse(
                _stream(message, usage, finish, self.token_delay), media_type="text/event-stream"
            )
        return JSONResponse(
            {
                "id": "chatcmpl-standin",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )

    def start(self) -> None:
        sock = bind_socket("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        app = Starlette(routes=[Route("/v1/chat/completions", self._completions, methods=["POST"])])
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self._server = server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="openai-standin", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
