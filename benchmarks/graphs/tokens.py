"""A graph whose model streams `tokens` tokens as fast as it can, for benchmarks/chat_render.py.

Token `i` is `"w<i> "` (the last one has no trailing space), so the whole answer is known in
advance and a reader can check that nothing was lost, duplicated or reordered. A line break
every 40 tokens keeps the Markdown made of paragraphs of a realistic size.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime


def token_text(i: int, count: int) -> str:
    if i == count - 1:
        return f"w{i}"
    return f"w{i}\n\n" if i % 40 == 39 else f"w{i} "


def answer(count: int) -> str:
    return "".join(token_text(i, count) for i in range(count))


@dataclass
class TokensContext:
    tokens: int = 20_000


class FloodModel(BaseChatModel):
    count: int = 20_000

    @property
    def _llm_type(self) -> str:
        return "agent-tui-flood"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(answer(self.count)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for i in range(self.count):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token_text(i, self.count)))
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
        for i in range(self.count):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token_text(i, self.count)))
            if run_manager:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


async def agent(state: MessagesState, runtime: Runtime[TokensContext]) -> dict[str, Any]:
    context = runtime.context or TokensContext()
    reply = await FloodModel(count=context.tokens).ainvoke(state["messages"])
    return {"messages": [reply]}


builder = StateGraph(MessagesState, context_schema=TokensContext)
builder.add_node("agent", agent)
builder.add_edge(START, "agent")
graph = builder.compile(name="tokens")
