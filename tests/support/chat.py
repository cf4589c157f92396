"""Shared by the chat pane tests: a fast chat assistant on the real server, the thread view
around a thread of it, and ways to type, send and wait for a run to end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.chat.items import (
    AIItem,
    ErrorItem,
    HumanItem,
    NoticeItem,
    ToolResultItem,
    TranscriptItem,
)
from agent_tui.chat.messages import message_text
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant, Thread
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.blocks import ErrorBlock
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.shell import ShellHarness

SIZE = (150, 45)


async def chat_assistant(client: AgentServerClient, token_delay_ms: int = 0) -> Assistant:
    """An assistant of the demo `chat` graph that streams with no (or a small) delay
    (Aegra keeps one assistant per graph and context: the one it has)."""
    return await client.assistants.create(
        "chat",
        context={"token_delay_ms": token_delay_ms},
        name=f"chat {token_delay_ms}ms",
        if_exists="do_nothing",
    )


async def chat_thread(client: AgentServerClient, assistant: Assistant) -> Thread:
    return await client.threads.create(
        metadata={"graph_id": "chat", "assistant_id": assistant.assistant_id}
    )


def chat_app(
    client: AgentServerClient,
    thread_id: str,
    assistant: Assistant | None = None,
    *,
    readonly: bool = False,
    **options: Any,
) -> tuple[ShellHarness, ThreadViewScreen]:
    """The thread view opened as `:thread <id>` opens it: Chat tab, prompt focused; the
    chat runs `assistant` (the server drops `assistant_id` from a new thread's metadata)."""
    chosen = ChatAssistant.of(assistant) if assistant is not None else None
    options.setdefault("status_interval", 0)  # no polling unless a test asks for it
    screen = ThreadViewScreen(client, thread_id, chat=True, assistant=chosen, **options)
    app = ShellHarness(screen, readonly=readonly)
    app.client = client
    return app, screen


def pane_of(app: ShellHarness) -> ChatPane:
    """The current screen's chat pane: one the test knows is mounted (after a screen
    switch, `mounted_pane`)."""
    return app.screen.query_one(ChatPane)


def has_mounted_pane(app: Any) -> bool:
    """Whether the current screen's chat pane is there and mounted (a screen just pushed
    composes its children a moment later)."""
    panes = app.screen.query(ChatPane)
    return bool(panes) and panes.first().is_mounted


async def mounted_pane(app: Any, pilot: Pilot[Any], wait_for: Any) -> ChatPane:
    """The current screen's chat pane, once it is mounted."""
    await wait_for(pilot, lambda: has_mounted_pane(app), what="the chat pane")
    pane: ChatPane = app.screen.query_one(ChatPane)
    return pane


async def type_and_send(pilot: Pilot[Any], pane: ChatPane, text: str) -> None:
    """Type `text` into the prompt (as a paste would) and press enter."""
    pane.prompt.focus()
    pane.prompt.insert(text)
    await pilot.press("enter")


def ended(pane: ChatPane) -> bool:
    return not pane.machine.active and pane.run_state in (
        "done",
        "error",
        "cancelled",
        "interrupted",
        "paused",
    )


def state_line(pane: ChatPane) -> str:
    return str(pane.query_one("#chat-state").render())


def ai_texts(pane: ChatPane) -> list[str]:
    return pane.model.ai_texts()


def humans(pane: ChatPane) -> list[str]:
    return [item.text for item in pane.model.items if isinstance(item, HumanItem)]


def tool_results(pane: ChatPane) -> list[ToolResultItem]:
    return [item for item in pane.model.items if isinstance(item, ToolResultItem)]


def errors(pane: ChatPane) -> list[ErrorItem]:
    return [item for item in pane.model.items if isinstance(item, ErrorItem)]


def error_block_texts(pane: ChatPane) -> list[str]:
    """What the transcript's error blocks say, as the user reads them (a block mounted
    but not composed yet says nothing)."""
    return [str(text.render()) for block in pane.query(ErrorBlock) for text in block.query(Static)]


def notices(pane: ChatPane) -> list[str]:
    return [item.text for item in pane.model.items if isinstance(item, NoticeItem)]


def shown_ai_texts(pane: ChatPane) -> list[str | None]:
    """The text every AI block shows (what the user reads)."""
    texts: list[str | None] = []
    for item in pane.model.items:
        if isinstance(item, AIItem):
            block = pane.transcript.block(item.key)
            texts.append(block.shown_text if isinstance(block, AIBlock) else None)
    return texts


async def final_messages(client: AgentServerClient, thread_id: str) -> list[tuple[str, str]]:
    """The thread's messages (type, text) as its state holds them."""
    state = await client.threads.get_state(thread_id)
    messages = state.values.get("messages", []) if isinstance(state.values, dict) else []
    shown: list[tuple[str, str]] = []
    for message in messages:
        content = message.get("content")
        shown.append((message.get("type", "?"), content if isinstance(content, str) else ""))
    return shown


@asynccontextmanager
async def run_elsewhere(
    client: AgentServerClient, thread_id: str, assistant_id: str, text: str
) -> AsyncIterator[asyncio.Task[None]]:
    """A run another client started on the thread (not resumable), streaming once this
    yields; cancelled on the way out if it has not ended."""
    started = asyncio.Event()

    async def elsewhere() -> None:
        async with client.runs.stream(
            thread_id, assistant_id, input={"messages": [{"role": "user", "content": text}]}
        ) as run:
            async for _ in run:
                started.set()

    other = asyncio.create_task(elsewhere())
    try:
        await asyncio.wait_for(started.wait(), 30)
        yield other
    finally:
        other.cancel()
        await asyncio.gather(other, return_exceptions=True)


def transcript_messages(pane: ChatPane) -> list[tuple[str, str]]:
    """The messages the transcript shows, as (type, text), in order: only items that have
    a block on screen."""
    items = [item for item in pane.model.items if pane.transcript.block(item.key) is not None]
    return item_messages(items)


def item_messages(items: list[TranscriptItem]) -> list[tuple[str, str]]:
    """The messages among transcript items, as (type, text), in order."""
    shown: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, HumanItem):
            shown.append(("human", item.text))
        elif isinstance(item, AIItem):
            shown.append(("ai", item.text))
        elif isinstance(item, ToolResultItem):
            shown.append(("tool", item.content))
    return shown


async def state_messages(client: AgentServerClient, thread_id: str) -> list[tuple[str, str]]:
    """`GET /threads/{id}/state`'s messages as the transcript shows them (type, text)."""
    state = await client.threads.get_state(thread_id)
    messages = state.values.get("messages", []) if isinstance(state.values, dict) else []
    return [(message.get("type", "?"), message_text(message)) for message in messages]
