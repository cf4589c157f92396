"""A LangChain chat model that answers by the demo's rules and streams word by word.

It is a real `BaseChatModel`, so inside a LangGraph node its tokens reach the
`messages-tuple` stream exactly as a hosted model's would: one event per token.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from agent_tui.local.demo import replies


class ScriptedChatModel(BaseChatModel):
    """Deterministic, offline chat model: see `replies.decide` for what it answers."""

    style: replies.Style = "plain"
    shout: bool = False
    token_delay: float = 0.0
    """Seconds to wait before each token, so streaming is visible to a human."""

    @property
    def _llm_type(self) -> str:
        return "agent-tui-scripted"

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        return replies.decide(messages, style=self.style, shout=self.shout)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        # No delay here: the sync path is for plain `invoke` in tests and scripts;
        # a blocking sleep would trip the agent server's blocking-call detector.
        for chunk in _chunks(self._reply(messages)):
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in _chunks(self._reply(messages)):
            if self.token_delay > 0:
                await asyncio.sleep(self.token_delay)
            if run_manager:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


def _chunks(message: AIMessage) -> list[ChatGenerationChunk]:
    """The streamed pieces of a reply: one per word, or one carrying the tool calls."""
    if message.tool_calls:
        tool_chunks = [
            ToolCallChunk(
                name=call["name"],
                args=json.dumps(call["args"]),
                id=call["id"],
                index=index,
                type="tool_call_chunk",
            )
            for index, call in enumerate(message.tool_calls)
        ]
        pieces = [AIMessageChunk(content="", tool_call_chunks=tool_chunks)]
    else:
        pieces = [AIMessageChunk(content=token) for token in replies.tokens(message.text)]
        pieces = pieces or [AIMessageChunk(content="")]
    # Marks the end of the message, so aggregating the chunks parses the tool calls.
    pieces[-1].chunk_position = "last"
    return [ChatGenerationChunk(message=piece) for piece in pieces]
