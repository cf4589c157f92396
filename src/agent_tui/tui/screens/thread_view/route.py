"""The route to the thread view (`:thread <id>`, `tui/routes.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from agent_tui.chat.assistant import ChatAssistant
    from agent_tui.client import AgentServerClient


def thread_view_screen(
    app: App[Any],
    argument: str | None,
    *,
    client: AgentServerClient | None = None,
    chat: bool = True,
    assistant: ChatAssistant | None = None,
) -> Screen[Any]:
    """`:thread <id>`: the thread view of that thread, on the Chat tab, ready to type.
    Screens that open it (`routes.build`) pass their `client`, `chat=False` for the State
    tab, and the `assistant` the chat runs."""
    thread_id = (argument or "").strip()
    if not thread_id:
        raise RouteUnavailable(":thread needs a thread id")
    client = client or agent_app(app).client
    if client is None:
        raise RouteUnavailable("not connected to a server yet")
    return ThreadViewScreen(client, thread_id, chat=chat, assistant=assistant)
