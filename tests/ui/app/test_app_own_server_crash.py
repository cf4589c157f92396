"""The local server this app started dies under it (a crash, ``kill -9``): the app says
so, starts it again on the same port and data, and carries on; no answered write is lost."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.paths import GRAPHS
from tests.support.processes import gone_within
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor

COUNTER = GRAPHS / "counter.py"


async def test_a_killed_local_server_is_started_again_with_its_data(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"tiny": f"{COUNTER}:graph"}}))
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=60, what="home"
        )
        server = app.local_server
        assert server is not None and app.client is not None
        url, first = server.url, server.pid
        assert first is not None
        made = await app.client.threads.create(metadata={"made": "before the crash"})

        os.kill(first, signal.SIGKILL)
        assert gone_within([first], 30)
        await toast_saying(pilot, "killed by SIGKILL", timeout=30)
        await wait_for(
            pilot,
            lambda: (
                server.is_running
                and server.pid != first
                and app.connection_status.startswith("connected")
            ),
            timeout=90,
            what="the server running again",
        )
        assert server.url == url  # the screens' client goes on as it was
        thread = await app.client.threads.get(made.thread_id)
        assert thread.metadata == {"made": "before the crash"}
        await toast_saying(pilot, "running again", timeout=30)
        await pilot.press("ctrl+q")
