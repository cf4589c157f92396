"""The runs of a thread (`R` in the thread view, `:runs ID`): what ran, how it ended, how
long it took; a failed run's error; joining and cancelling a running one."""

from __future__ import annotations

from typing import Any

import httpx
from textual.widgets import DataTable

from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_runs import ThreadRunsScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.screen import toast_saying, toasts
from tests.support.waiting import WaitFor, screen_shown


def ticker(**context: Any) -> dict[str, Any]:
    return {"assistant_id": "ticker", "input": {}, "context": context}


def rows(screen: ThreadRunsScreen) -> list[list[str]]:
    table = screen.table
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def home(app: AgentTuiApp, pilot: Any, wait_for: WaitFor) -> None:
    await screen_shown(pilot, ServerInfoScreen, what="home")
    table = app.screen.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="the graphs")


async def new_runs_screen(
    app: AgentTuiApp, pilot: Any, wait_for: WaitFor, *, than: object
) -> ThreadRunsScreen:
    """Another runs screen than `than` came up, with the one run listed."""
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, ThreadRunsScreen) and app.screen is not than,
        what="a runs screen",
        workers=False,
    )
    runs = app.screen
    assert isinstance(runs, ThreadRunsScreen)
    await wait_for(pilot, lambda: runs.table.row_count == 1, what="the run", workers=False)
    return runs


async def test_runs_show_how_each_ended_and_a_failed_one_says_why(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id = (await http.post("/threads", json={})).json()["thread_id"]
        ok = await http.post(f"/threads/{thread_id}/runs/wait", json=ticker(ticks=2, delay=0.01))
        assert ok.status_code == 200
        await http.post(f"/threads/{thread_id}/runs/wait", json=ticker(ticks=1, then="fail"))
        runs = (await http.get(f"/threads/{thread_id}/runs")).json()
    assert sorted(r["status"] for r in runs) == ["error", "success"]
    failed = next(r for r in runs if r["status"] == "error")

    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await home(app, pilot, wait_for)
        await pilot.press("colon", *f"runs {thread_id}", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
        screen = app.screen
        assert isinstance(screen, ThreadRunsScreen)
        await wait_for(pilot, lambda: screen.table.row_count == 2, what="two runs")
        shown = rows(screen)
        # Newest first: the failed run, then the one that worked; the assistant by name.
        assert [row[1] for row in shown] == ["error", "success"]
        assert all(row[2] == "ticker" for row in shown)
        assert all(row[3].startswith("20") and row[4].endswith("s") for row in shown)

        assert screen.table.move_to(failed["run_id"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the run")
        detail = app.screen
        assert isinstance(detail, RawJsonScreen)
        assert "the ticker was told to fail" in detail.data["error"]
        assert detail.data["kwargs"]["context"]["then"] == "fail"

        # Read-only: cancelling is refused before anything is asked.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back")
        await pilot.press("x")
        await toast_saying(pilot, "Read-only mode: cannot cancel a run")


async def test_r_in_the_thread_view_lists_runs_and_a_running_one_is_joined_or_cancelled(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id = (await http.post("/threads", json={})).json()["thread_id"]
        started = await http.post(f"/threads/{thread_id}/runs", json=ticker(ticks=2000, delay=0.05))
        run_id = started.json()["run_id"]

    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await home(app, pilot, wait_for)
        await pilot.press("colon", *f"runs {thread_id}", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
        screen = app.screen
        assert isinstance(screen, ThreadRunsScreen)
        await wait_for(
            pilot,
            lambda: screen.table.row_count == 1 and rows(screen)[0][1] == "running",
            what="the running run",
            workers=False,
        )
        assert rows(screen)[0][4].endswith("…")  # still counting

        # `j`: the thread view, following the run on its chat.
        await pilot.press("j")
        await screen_shown(pilot, ThreadViewScreen, what="the view", workers=False)
        view = app.screen
        assert isinstance(view, ThreadViewScreen) and view.thread_id == thread_id
        # `R` there (with the history focused) comes back to the runs. The view opens on
        # the chat with the prompt focused (where R is a letter): wait for that first.
        await wait_for(pilot, lambda: view.chat.prompt.has_focus, what="the prompt", workers=False)
        history = view.query_one("#history")

        def history_focused() -> bool:
            # Focused again until it holds: under load the chat tab's first showing can
            # come late and put the focus back on its prompt.
            if not history.has_focus:
                history.focus()
            return history.has_focus

        await wait_for(pilot, history_focused, what="the history", workers=False)
        await pilot.press("R")
        runs = await new_runs_screen(app, pilot, wait_for, than=screen)

        # The palette has it too (as has `?`): back to the view, run it from there.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is view, what="the view", workers=False)
        [command] = [c for c in view.palette_commands() if c.name == "Runs of this thread"]
        await command.callback()
        runs = await new_runs_screen(app, pilot, wait_for, than=runs)

        await pilot.press("x")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm", workers=False
        )
        await pilot.press("y")
        # The toast and the row, in either order: under load the list came back after the
        # toast had gone (a toast shows for a few seconds).
        said: list[str] = []

        def cancelled() -> bool:
            if app.screen.query("ToastRack"):
                said.extend(t for t in toasts(app) if "Cancelled run" in t)
            return bool(said) and runs.table.row_count > 0 and rows(runs)[0][1] == "interrupted"

        await wait_for(pilot, cancelled, what="the run cancelled, said", workers=False)
    async with httpx.AsyncClient(base_url=agent_server_url, trust_env=False, timeout=60) as http:
        assert (await http.get(f"/threads/{thread_id}/runs/{run_id}")).json()[
            "status"
        ] == "interrupted"
