"""The app on a context whose own header gets past the project's auth of a server
agent-tui did not start: home lists the graphs and names the header's source, never
its value."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from agent_tui.settings.config import load_config
from agent_tui.settings.contexts import resolve_context
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support import guarded as guarded_support
from tests.support.guarded import TOKEN
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor, screen_shown

VARIABLE = "GUARD_TOKEN_FOR_THE_APP"


guarded = guarded_support.guarded  # the fixture


@pytest.fixture
def guarded_context(guarded: str, config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file.write_text(
        f'[contexts.guarded]\nagent_server_url = "{guarded}"\n\n'
        f'[contexts.guarded.headers]\nAuthorization = "Bearer {{env:{VARIABLE}}}"\n'
    )
    monkeypatch.setenv(VARIABLE, TOKEN)


@pytest.mark.usefixtures("guarded_context")
async def test_the_app_gets_in_with_the_contexts_header(wait_for: WaitFor) -> None:
    app = AgentTuiApp(resolve_context(load_config(), "guarded"))
    async with app.run_test(size=(140, 40)) as pilot:
        await screen_shown(pilot, ServerInfoScreen, what="home")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the project's graph")
        shown = screen_text(app)
        assert f"Authorization (env {VARIABLE})" in shown
        assert TOKEN not in shown and TOKEN not in app.export_screenshot()
        assert app.client is not None
        thread = await app.client.threads.create()  # writes too, not only reads
        assert thread.thread_id
        await pilot.press("ctrl+q")
