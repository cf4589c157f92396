"""A second `agent-tui` using another process's local server takes over when it stops:
it starts its own server on the same data, and no thread is lost."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from textual.widgets import Static

from agent_tui.local import EmbeddedAgentServer
from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.paths import GRAPHS
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor

COUNTER = GRAPHS / "counter.py"


async def test_the_app_takes_over_when_the_owner_stops(tmp_path: Path, wait_for: WaitFor) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"tiny": f"{COUNTER}:graph"}}))
    data = tmp_path / "data"
    owner = EmbeddedAgentServer(config, data_dir=data, log_file=tmp_path / "owner.log")
    await owner.__aenter__()
    try:
        async with httpx.AsyncClient(base_url=owner.url, timeout=60) as http:
            made = await http.post("/threads", json={"metadata": {"made_by": "owner"}})
        thread_id = made.json()["thread_id"]
        app = AgentTuiApp(LocalServer(config_path=config, data_dir=data))
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            await wait_for(
                pilot, lambda: isinstance(app.screen, ServerInfoScreen), timeout=60, what="home"
            )
            assert app.attached_server is not None and app.local_server is None

            await owner.stop_async()  # the other copy quit

            def own_home() -> bool:
                screen = app.screen
                if not isinstance(screen, ServerInfoScreen) or app.local_server is None:
                    return False
                summary = str(screen.query_one("#summary", Static).render())
                return "started by agent-tui" in summary

            # The toast lasts seconds; starting a server under load can take longer, so
            # look for it while the start is under way (not after it, nor by waiting on
            # the connect worker, which holds the wait until the server answers).
            await toast_saying(pilot, "starting this app's own", timeout=30)
            await wait_for(pilot, own_home, timeout=90, what="this app's own server")
            assert app.client is not None
            thread = await app.client.threads.get(thread_id)
            assert thread.metadata.get("made_by") == "owner"
            mine = await app.client.threads.create(metadata={"made_by": "second"})
            await pilot.press("ctrl+q")
    finally:
        await owner.stop_async()

    # Both copies quit; the next start has every thread (the original report lost one).
    again = EmbeddedAgentServer(config, data_dir=data, log_file=tmp_path / "again.log")
    async with again, httpx.AsyncClient(base_url=again.url, timeout=60) as http:
        found = (await http.post("/threads/search", json={"limit": 10})).json()
    made_by = sorted(t["metadata"].get("made_by") for t in found)
    assert made_by == ["owner", "second"]
    assert {t["thread_id"] for t in found} == {thread_id, mine.thread_id}
