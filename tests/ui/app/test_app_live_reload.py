"""Live reload in the app: an edit reloads the server and the home screen's graphs; a
broken edit shows file, line and message while the app keeps working; a fix recovers."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Static

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.projects import copy_weather_project
from tests.support.screen import toast_saying, toasts
from tests.support.waiting import WaitFor, screen_shown


def graph_ids(table: DataTable[object]) -> list[str]:
    return [str(table.get_row_at(row)[0]) for row in range(table.row_count)]


async def test_edit_break_fix_with_the_app_open(tmp_path: Path, wait_for: WaitFor) -> None:
    config = copy_weather_project(tmp_path)
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"), reload=True)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await screen_shown(pilot, ServerInfoScreen, timeout=120, what="home")
        home = app.screen
        table = home.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
        summary = str(home.query_one("#summary", Static).render())
        assert "Reload" in summary and "Environment" in summary
        server = app.local_server
        assert server is not None and server.pid is not None
        url, pid = server.url, server.pid

        # A second graph in langgraph.json: reloaded, and the home screen shows it.
        raw = json.loads(config.read_text())
        raw["graphs"]["weather_too"] = "./agent.py:graph"
        config.write_text(json.dumps(raw))
        await toast_saying(pilot, "graphs refreshed", timeout=90)
        await wait_for(pilot, lambda: table.row_count == 2, what="the new graph on home")
        assert graph_ids(table) == ["weather", "weather_too"]
        assert server.url == url and server.pid != pid
        assert app.sub_title == f"connected · {url}"

        # A broken edit: file, line and message; the app and the old server keep working.
        agent = config.parent / "agent.py"
        good = agent.read_text()
        agent.write_text(good + "\nbroken = (\n")
        line = len((good + "\nbroken = (\n").splitlines())
        failure = await toast_saying(pilot, "Reload failed", timeout=90)
        assert f"agent.py:{line}: SyntaxError" in failure
        assert app.sub_title == f"reload failed (agent.py:{line}) · {url}"
        assert server.is_running
        await pilot.press("r")  # home refreshes from the server still running the old code
        await wait_for(pilot, lambda: table.row_count == 2, what="home after the failure")

        # Fixed: recovered, with no restart of the app; the failure's toast (long, an
        # error) goes with it rather than cover the screen for its 30 s.
        agent.write_text(good)
        await wait_for(
            pilot, lambda: app.sub_title == f"connected · {url}", timeout=90, what="the fix"
        )
        await toast_saying(pilot, "graphs refreshed")
        await wait_for(
            pilot,
            lambda: not [text for text in toasts(app) if "Reload failed" in text],
            timeout=5,  # of the failure toast's 30
            what="the failure's toast gone",
            workers=False,
        )
        await pilot.press("ctrl+q")
    assert not server.is_running
