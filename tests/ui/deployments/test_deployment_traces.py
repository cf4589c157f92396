"""A deployment of agent-tui's local control plane traces to this machine's collector (its
deployer starts the server so), so an app connected to that deployment's agent server
counts it as traced here: the Calls tab of a thread with no trace gives the reason of a
traced server, not "not started by agent-tui". A real local control plane (on the data
folder the app knows), a real deploy of the test graphs, the app as a user runs it with a
context pointing at the deployment's URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.settings.contexts import Context
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.control_plane import checked_client, create_and_follow
from tests.support.paths import GRAPHS_CONFIG
from tests.support.screen import screen_text
from tests.support.thread_view import loaded, superstep
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(180)
TRACED_REASON = "No run of this thread was traced here"


async def test_a_local_control_plane_deployment_counts_as_traced_here(
    wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))  # the control plane's folder: ours
    monkeypatch.delenv("AGENT_TUI_TRACES", raising=False)
    plane = LocalControlPlane()  # as `agent-tui control-plane serve` runs it
    plane.start()
    try:
        async with checked_client(plane.url, api_key=plane.api_key) as control_plane:
            created, statuses = await create_and_follow(
                control_plane, "traced-here", GRAPHS_CONFIG, interval=0.2, timeout=90
            )
            assert statuses[-1] == "DEPLOYED", statuses
            url = (await control_plane.deployments.get(created.id)).url
        assert url is not None
        # A thread whose checkpoints no run wrote: nothing of it in the trace store.
        async with AgentServerClient(url) as server:
            steps = [superstep({"n": 5}, "__input__"), superstep({"n": 5}, "__start__")]
            thread = await server.threads.create(metadata={"graph_id": "counter"}, supersteps=steps)

        app = AgentTuiApp(Context("deployed", RemoteServer(url), key_source="none"))
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
            assert await app.open_resource("thread", thread.thread_id)
            screen = app.screen
            assert isinstance(screen, ThreadViewScreen)
            await wait_for(pilot, lambda: loaded(screen), what="the history")
            await pilot.click("#history")  # the chat's prompt would take the `C`
            await pilot.press("C")
            await wait_for(
                pilot, lambda: TRACED_REASON in screen_text(app), what="why there are no calls"
            )
            assert "not started by agent-tui" not in screen_text(app)
    finally:
        plane.stop()
