"""A project broken before its server ever ran behaves like a broken reload: the start-up
screen says file, line and message (not the server's `pip install` advice), keeps
watching the project, and opens home by itself once a save fixes it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.projects import broken_project
from tests.support.waiting import WaitFor, screen_shown

MISSING = "tools.py:1: ModuleNotFoundError: No module named 'not_installed_anywhere' (graph agent)"


def shown(screen: StartupScreen, widget: str) -> str:
    static = screen.query_one(f"#{widget}", Static)
    return str(static.render()) if static.display else ""


def failure_text(screen: StartupScreen) -> str:
    parts = ("error-title", "error-hint", "error-watch", "error-message", "error-details")
    return "\n".join(shown(screen, part) for part in parts)


async def test_broken_at_start_says_where_and_opens_home_when_a_save_fixes_it(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = broken_project(tmp_path / "project")
    tools = config.parent / "tools.py"
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"), reload=True)
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        await wait_for(pilot, lambda: startup.failed, timeout=90, what="the failure")
        text = failure_text(startup)
        assert "The local agent server did not start: its graphs do not load" in text
        assert MISSING in shown(startup, "error-message")
        # What to do about it, as a newcomer needs it said.
        advice = "The project's environment has no `not_installed_anywhere`: list the package"
        assert advice in shown(startup, "error-message")
        assert 'langgraph.json\'s "dependencies"' in shown(startup, "error-message")
        assert "pip install" not in text and "exited with code" not in text
        assert shown(startup, "error-watch") == (
            f"Watching {config.parent}: a save that fixes the graphs starts the server again"
        )
        assert app.sub_title == "failed"

        # A save that is still broken: where it breaks now, still watching.
        tools.write_text("STEP = 1\nbroken = (\n")
        await wait_for(
            pilot,
            lambda: "tools.py:2: SyntaxError" in shown(startup, "error-message"),
            timeout=60,
            workers=False,
            what="the new problem",
        )
        assert "Still broken after tools.py changed" in shown(startup, "error-watch")
        assert isinstance(app.screen, StartupScreen)

        # Fixed: the server starts and home opens, with no key pressed.
        tools.write_text("STEP = 1\n")
        await screen_shown(pilot, ServerInfoScreen, timeout=90, what="home")
        table = app.screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
        assert table.get_row_at(0)[0].plain == "agent"
        server = app.local_server
        assert server is not None and server.is_running
        assert app.sub_title == f"connected · {server.url}"
        assert "Reload" in str(app.screen.query_one("#summary", Static).render())
        await pilot.press("ctrl+q")
    assert app.return_code == 0
    assert not server.is_running


async def test_without_reload_it_says_where_and_waits_for_r(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = broken_project(tmp_path / "project")
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        await wait_for(pilot, lambda: startup.failed, timeout=90, what="the failure")
        assert MISSING in shown(startup, "error-message")
        assert shown(startup, "error-watch") == ""  # --no-reload: nothing is watched
        assert app.local.fix_watch is None
        (config.parent / "tools.py").write_text("STEP = 1\n")
        await pilot.press("r")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=90, what="home"
        )
        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_a_broken_langgraph_json_is_watched_too(tmp_path: Path, wait_for: WaitFor) -> None:
    config = broken_project(tmp_path / "project")
    (config.parent / "tools.py").write_text("STEP = 1\n")
    good = config.read_text()
    config.write_text(good[:-1])  # the closing brace is missing
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"), reload=True)
    async with app.run_test(size=(120, 40)) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        await wait_for(pilot, lambda: startup.failed, timeout=60, what="the failure")
        assert str(config) in shown(startup, "error-message")
        assert shown(startup, "error-watch") == (
            f"Watching {config.parent}: a save starts the server again"
        )
        config.write_text(good)
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=90, what="home"
        )
        await pilot.press("ctrl+q")
    assert app.return_code == 0
