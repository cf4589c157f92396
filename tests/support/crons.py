"""Shared by the `:crons` tests: an app on the session's real server, opened on `:crons`,
and crons made for one test (yearly, so none fires during the suite) and removed after."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.client.models import Assistant, Cron
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.crons.list import CronsScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.waiting import WaitFor, screen_shown

YEARLY = "0 0 1 1 *"


def label() -> str:
    """A name unique to one test, so it finds its own crons among the suite's."""
    return "cron-" + uuid.uuid4().hex[:10]


async def home(app: AgentTuiApp, pilot: Any, wait_for: WaitFor) -> None:
    await screen_shown(pilot, ServerInfoScreen, what="home")
    table = app.screen.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")


async def open_crons(
    app: AgentTuiApp, pilot: Any, wait_for: WaitFor, *, expect: Sequence[str] = ()
) -> CronsScreen:
    """`:crons` typed in command mode, once the rows of the `expect` cron ids are in."""
    await home(app, pilot, wait_for)
    await pilot.press("colon", *"crons", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, CronsScreen), what="the crons")
    screen = app.screen
    assert isinstance(screen, CronsScreen)
    await wait_for(
        pilot,
        lambda: all(has_row(screen, cron_id) for cron_id in expect) and screen._loaded_once,
        what="the test's crons",
    )
    return screen


def has_row(screen: CronsScreen, cron_id: str) -> bool:
    try:
        screen.table.get_row_index(cron_id)
    except RowDoesNotExist:
        return False
    return True


def row_of(screen: CronsScreen, cron_id: str) -> list[str]:
    """The cells of a cron's row, as shown."""
    table = screen.table
    index = table.get_row_index(cron_id)
    return [cell.plain for cell in table.get_row_at(index)]


class Made:
    """Crons a test made (deleted at the end, whatever happened)."""

    def __init__(self, client: AgentServerClient) -> None:
        self.client = client
        self.ids: list[str] = []

    def add(self, cron: Cron) -> Cron:
        self.ids.append(cron.cron_id)
        return cron

    async def for_assistant(self, assistant: Assistant) -> list[Cron]:
        """What the server has for `assistant` (created through the UI, say)."""
        found = await self.client.crons.search(assistant_id=assistant.assistant_id)
        self.ids.extend(c.cron_id for c in found if c.cron_id not in self.ids)
        return found

    async def remove_all(self) -> None:
        for cron_id in self.ids:
            with contextlib.suppress(NotFound):
                await self.client.crons.delete(cron_id)


@contextlib.asynccontextmanager
async def made_crons(client: AgentServerClient) -> AsyncIterator[Made]:
    made = Made(client)
    try:
        yield made
    finally:
        await made.remove_all()
