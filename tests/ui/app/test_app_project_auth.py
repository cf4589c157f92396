"""The app on a project with its own auth (`langgraph.json` `auth`): its local server lets
the app in, as `langgraph dev` lets Studio in; a client of its own still meets the
project's handler."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from textual.widgets import DataTable

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.guarded import AUTH
from tests.support.projects import copy_weather_project
from tests.support.waiting import WaitFor, screen_shown


async def test_the_app_works_on_a_project_with_its_own_auth(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = copy_weather_project(tmp_path)
    (config.parent / "auth.py").write_text(AUTH)
    raw = json.loads(config.read_text())
    raw["auth"] = {"path": "./auth.py:auth"}
    config.write_text(json.dumps(raw))
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(140, 40)) as pilot:
        await screen_shown(pilot, ServerInfoScreen, timeout=120, what="home")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the project's graph")
        assert app.client is not None
        thread = await app.client.threads.create()  # writes too, not only reads
        server = app.local_server
        assert server is not None
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=60) as http:
            refused = await http.get(f"/threads/{thread.thread_id}")
        assert refused.status_code == 401 and "the project says no" in refused.text
