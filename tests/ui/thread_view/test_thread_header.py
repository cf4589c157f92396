"""The thread view's header keeps to one line whatever the server holds: a megabyte graph
name is cut with `…`, and the status and counts after it stay in view."""

from __future__ import annotations

from agent_tui.client import AgentServerClient
from tests.support.screen import screen_text
from tests.support.thread_view import view_app
from tests.support.waiting import WaitFor


async def test_a_megabyte_graph_name_is_cut_and_the_rest_of_the_header_shows(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(metadata={"graph_id": "g" * 1_000_000})
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: screen.sync.thread is not None, what="the thread")
        await pilot.pause()
        [header] = [line for line in screen_text(app).splitlines() if "Thread " in line]
        assert "graph ggg" in header and "g…" in header
        assert "checkpoints" in header, header
