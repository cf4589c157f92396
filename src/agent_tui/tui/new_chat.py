"""A chat in a new thread: what `c` does on home's graphs and an assistant's detail."""

from __future__ import annotations

from typing import Any

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.tui import routes
from agent_tui.tui.agent_screen import AgentScreen


async def chat_in_new_thread(
    screen: AgentScreen[Any], client: AgentServerClient, assistant: ChatAssistant
) -> None:
    """Create a thread for ``assistant`` (its metadata naming it) and open it on its chat;
    a failure to create it is reported on ``screen``."""
    try:
        thread = await client.threads.create(metadata=assistant.thread_metadata())
    except ApiError as error:
        screen.report_error(error, doing="create a thread")
        return
    await screen.app.push_screen(
        routes.build(screen.app, "thread", thread.thread_id, client=client, assistant=assistant)
    )
