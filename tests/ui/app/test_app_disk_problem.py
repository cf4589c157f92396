"""A local server that cannot save its data: the app says so in its header and a
notification (the server refuses the writes with 507), and again when it saves again."""

from __future__ import annotations

import resource
from pathlib import Path

import httpx

from agent_tui.local import DEMO_CONFIG
from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor


async def test_the_header_says_the_server_cannot_save(tmp_path: Path, wait_for: WaitFor) -> None:
    app = AgentTuiApp(LocalServer(config_path=DEMO_CONFIG, data_dir=tmp_path / "data"))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=120, what="home"
        )
        server = app.local_server
        assert server is not None and server.pid is not None
        url = server.url
        # The closest fault to a full disk without root: a file-size limit (EFBIG).
        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))
        async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=30) as client:
            refused = await client.post("/threads", json={})
            assert refused.status_code == 507
            told = await toast_saying(pilot, "cannot save the server's data", timeout=30)
            assert "File too large" in told
            assert app.sub_title.startswith("⚠ agent-tui: cannot save the server's data in ")

            # Room again: the next write is kept, and the header says connected again.
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
            assert (await client.post("/threads", json={})).status_code == 200
            await toast_saying(pilot, "saves its data again", timeout=30)
            assert app.sub_title == f"connected · {url}"
        await pilot.press("ctrl+q")
