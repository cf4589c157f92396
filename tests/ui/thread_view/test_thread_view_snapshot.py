"""How the thread view looks, on fixed data from a fake server (stable run to run), and
`:thread <id>` opening it on the real server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.fixed_servers import THREAD_ID, thread_view_server
from tests.support.screen import toast_saying
from tests.support.shell import ShellHarness
from tests.support.thread_view import counter_thread, loaded, underline_under_active_tab
from tests.support.waiting import WaitFor


def test_thread_view_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    client = AgentServerClient("http://agent.test", http_transport=thread_view_server())
    screen = ThreadViewScreen(client, THREAD_ID, status_interval=0)
    app = ShellHarness(screen)
    app.client = client
    app.connection_status = "connected · http://agent.test"

    async def settled(pilot: Any) -> None:
        # The history and the checkpoint under the cursor loaded, nothing left loading, and
        # the sections below the values built and filled (they are built a moment after
        # the first paint: under load the picture had them mounted, not yet filled).
        await wait_for(
            pilot,
            lambda: (
                loaded(screen)
                and screen.checkpoint_view.details_built
                and all(worker.is_finished for worker in app.workers)
            ),
            what="the thread view",
        )

    async def run_before(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press("down")  # step 1: the human message only
        await pilot.press("up")
        await settled(pilot)

    assert snap_compare(app, terminal_size=(140, 32), run_before=run_before)


async def test_thread_command_opens_the_thread_view(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    async with AgentServerClient(agent_server_url) as client:
        thread = await counter_thread(client, 5)
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_for(pilot, lambda: app.client is not None, what="the connection")
        await pilot.pause()
        assert await app.run_command(f"thread {thread.thread_id}")
        screen = app.screen
        assert isinstance(screen, ThreadViewScreen)
        await wait_for(pilot, lambda: screen.checkpoint_view.state is not None)
        assert screen.checkpoint_view.state is not None
        assert screen.checkpoint_view.state.values == {"n": 12, "items": [5]}

        # Not an id at all: said at once, nothing opens (a short id would be looked up).
        assert not await app.run_command("thread not-a-uuid")
        assert app.screen is screen
        await toast_saying(pilot, "'not-a-uuid' is not a thread id")


def test_timeline_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    """The Timeline tab: the supersteps as a waterfall, each node with how long it took
    (from the fixed checkpoint times)."""
    client = AgentServerClient("http://agent.test", http_transport=thread_view_server())
    screen = ThreadViewScreen(client, THREAD_ID, status_interval=0)
    app = ShellHarness(screen)
    app.client = client
    app.connection_status = "connected · http://agent.test"

    async def run_before(pilot: Any) -> None:
        await wait_for(
            pilot,
            lambda: loaded(screen) and all(worker.is_finished for worker in app.workers),
            what="the thread view",
        )
        screen.tabs.active = "tab-timeline"
        await wait_for(
            pilot,
            lambda: (
                underline_under_active_tab(screen)
                and bool(screen.query_one("#timeline").steps)  # type: ignore[attr-defined]
                # Drawn again once the runs' starts are read (under load, after this
                # condition was first true).
                and not screen.timeline.runs_pending
                and all(worker.is_finished for worker in app.workers)
            ),
            what="the timeline",
        )

    assert snap_compare(app, terminal_size=(140, 32), run_before=run_before)
