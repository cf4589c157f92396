"""A second `agent-tui` on the same project uses the server another process runs for it.

It connects instead of starting one (two servers on one data folder would lose threads),
says on the home screen whose server it is, and leaves it running on exit; when the owner
lets go before its server answers, the app starts its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
from textual.widgets import DataTable, Static

from agent_tui.local import EmbeddedAgentServer, ServerLock, running_server
from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.startup import StartupScreen
from tests.support.projects import tiny_config
from tests.support.waiting import WaitFor, screen_shown


def heading(app: AgentTuiApp) -> str:
    return str(app.screen.query_one("#heading", Static).render())


def summary(app: AgentTuiApp) -> str:
    return str(app.screen.query_one("#summary", Static).render())


async def test_a_second_app_uses_the_running_server_and_leaves_it_running(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = tiny_config(tmp_path)
    owner = EmbeddedAgentServer(config, data_dir=tmp_path / "data", log_file=tmp_path / "log")
    async with owner:
        app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
        async with app.run_test(size=(140, 40)) as pilot:
            await screen_shown(pilot, ServerInfoScreen, timeout=60, what="home")
            table = app.screen.query_one("#graphs", DataTable)
            await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")
            assert table.get_row_at(0)[0].plain == "tiny"
            shown = summary(app)
            assert owner.url in shown
            assert f"belongs to process {os.getpid()}" in shown
            assert "keeps running after this app exits" in shown
            assert str(config) in shown
            assert app.local_server is None  # it started nothing
            await pilot.press("ctrl+q")
        assert app.return_code == 0
        # The owner's server is untouched.
        assert owner.is_running
        async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
            assert (await client.get(f"{owner.url}/ok")).status_code == 200


async def test_the_app_waits_for_a_server_another_process_is_starting(
    tmp_path: Path, wait_for: WaitFor, agent_server_url: str
) -> None:
    config = tiny_config(tmp_path)
    lock = ServerLock.acquire(tmp_path / "data", config=config)  # a starting owner: us
    try:
        app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
        async with app.run_test(size=(140, 40)) as pilot:
            waiting = f"Waiting for the local agent server that process {os.getpid()} is starting"
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, StartupScreen) and waiting in heading(app),
                workers=False,
                what="the waiting message",
            )
            # It answers: the app connects to it.
            lock.record(url=agent_server_url, server_pid=None, config=config)
            await wait_for(
                pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=60, what="home"
            )
            assert f"{agent_server_url}  (local: belongs to process {os.getpid()}" in summary(app)
            await pilot.press("ctrl+q")
        assert app.local_server is None
        assert running_server(tmp_path / "data") is not None  # still ours, not the app's
    finally:
        lock.release()


async def test_when_the_owner_lets_go_the_app_starts_its_own(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = tiny_config(tmp_path)
    data = tmp_path / "data"
    lock = ServerLock.acquire(data, config=config)
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=data))
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_for(
                pilot,
                lambda: "is starting" in heading(app),
                workers=False,
                what="the waiting message",
            )
            lock.release()  # the other process gave up before its server answered
            await wait_for(
                pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=90, what="home"
            )
            assert "started by agent-tui, stops when it exits" in summary(app)
            server = app.local_server
            assert server is not None and server.is_running
            # The folder is the app's now: a third copy would connect to it.
            running = running_server(data)
            assert running is not None
            assert (running.url, running.pid, running.server_pid) == (
                server.url,
                os.getpid(),
                server.pid,
            )
            await pilot.press("ctrl+q")
        assert not server.is_running
        assert running_server(data) is None
    finally:
        lock.release()
        app.stop_local_server()
