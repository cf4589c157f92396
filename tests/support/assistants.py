"""The Assistants screen inside the shell, against the session's real agent server."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from textual.pilot import Pilot

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.client import AgentServerClient
from agent_tui.text.time_text import now_utc
from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen
from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.shell import ShellApp
from tests.support.waiting import WaitFor

SIZE = (140, 45)


def unique(prefix: str) -> str:
    """A name no other test uses (the server is shared by the whole session)."""
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class AssistantsApp(ShellApp):
    """The shell with the Assistants screen open, as `:assistants [graph]` opens it."""

    TITLE = "agent-tui"

    def __init__(
        self,
        client: AgentServerClient,
        *,
        graph_id: str | None = None,
        readonly: bool = False,
        clock: Callable[[], datetime] = now_utc,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        self.fixed_theme = theme  # snapshots: not whatever theme another test saved
        self.client = client
        self.readonly = readonly
        self.context_overrides = ContextOverrides()
        self.assistants = AssistantsScreen(client, graph_id=graph_id, clock=clock)

    def on_mount(self) -> None:
        super().on_mount()
        if self.fixed_theme:
            self.theme = self.fixed_theme
        self.push_screen(self.assistants)


async def loaded(pilot: Pilot[Any], wait_for: WaitFor, app: AssistantsApp) -> None:
    """Wait until the table and the list of graphs have loaded."""
    screen = app.assistants
    await wait_for(
        pilot,
        lambda: screen.is_mounted and screen.table.loaded_count > 0 and bool(screen.graphs),
        what="the assistants",
    )


async def select(
    pilot: Pilot[Any], wait_for: WaitFor, app: AssistantsApp, assistant_id: str
) -> None:
    """Reload the table and put the cursor on the assistant's row."""
    screen = app.assistants
    screen.reload()
    await wait_for(pilot, lambda: screen.table.get_item(assistant_id) is not None, what="the row")
    assert screen.table.move_to(assistant_id)
    await pilot.pause()


async def open_detail(
    pilot: Pilot[Any], wait_for: WaitFor, app: AssistantsApp, assistant_id: str
) -> AssistantDetailScreen:
    """Select the assistant in the table, `enter`, and wait for its versions."""
    await select(pilot, wait_for, app, assistant_id)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, AssistantDetailScreen), what="the detail")
    detail = app.screen
    assert isinstance(detail, AssistantDetailScreen)
    await wait_for(pilot, lambda: detail.active is not None, what="the versions")
    return detail


async def chat_graph_listing(
    pilot: Pilot[Any], wait_for: WaitFor, app: Any, assistant_id: str
) -> AssistantsScreen:
    """On the app's home: `:assistants chat`, the cursor on ``assistant_id``."""
    from agent_tui.tui.screens.server_info import ServerInfoScreen

    await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
    assert await app.run_command(":assistants chat")
    await wait_for(pilot, lambda: isinstance(app.screen, AssistantsScreen), what="the list")
    listing = app.screen
    assert isinstance(listing, AssistantsScreen)
    await wait_for(pilot, lambda: listing.table.get_item(assistant_id) is not None)
    assert listing.table.move_to(assistant_id)
    return listing


async def chat_by_c(pilot: Pilot[Any], wait_for: WaitFor, app: Any) -> tuple[Any, Any]:
    """`c`: the new thread's view and its chat pane, once the prompt has the focus."""
    from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen

    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, ThreadViewScreen), what="the chat")
    view = app.screen
    assert isinstance(view, ThreadViewScreen)
    pane = view.chat
    await wait_for(pilot, lambda: pane.prompt.has_focus, what="the prompt focused")
    return view, pane
