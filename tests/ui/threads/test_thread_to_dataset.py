"""`D` on the Threads screen: the selected thread's last turn becomes an example of a
dataset on this machine (its message as the input, its answer as the reference); a
thread with no turn says so in the form, and the form keeps what was typed."""

from __future__ import annotations

import uuid

from agent_tui.client import AgentServerClient
from agent_tui.datasets.store import DatasetStore
from agent_tui.settings.target import RemoteServer
from agent_tui.threads.query import ThreadQuery
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.to_dataset import AddToDatasetScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from agent_tui.tui.widgets.inert import Input
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor, screen_shown


async def test_d_adds_the_last_turn_to_a_dataset(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    tag = uuid.uuid4().hex[:8]
    empty = await client.threads.create(metadata={"suite": tag, "graph_id": "echo", "i": 0})
    talked = await client.threads.create(metadata={"suite": tag, "graph_id": "echo", "i": 1})
    for text in ("first", "Hello There"):
        await client.runs.wait(
            talked.thread_id, "echo", input={"messages": [{"role": "user", "content": text}]}
        )
    dataset = f"turns-{tag}"
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="connect")
        assert app.client is not None
        screen = ThreadsScreen(app.client, ThreadQuery(metadata={"suite": tag}))
        await app.push_screen(screen)
        await wait_for(pilot, lambda: screen.table.row_count == 2, what="the two threads")
        # Newest update first: the thread that talked.
        assert screen.table.visible_items[0].thread_id == talked.thread_id

        await pilot.press("D")
        await screen_shown(pilot, AddToDatasetScreen, what="form")
        app.screen.query_one("#to-dataset-name", Input).value = dataset
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, what="the form closed")
        (example,) = DatasetStore().load(dataset).examples
        assert example.inputs == {"messages": [{"role": "user", "content": "Hello There"}]}
        assert example.outputs == {"answer": "Hello There"}
        assert example.metadata == {"source_thread_id": talked.thread_id}

        await pilot.press("down", "D")
        await screen_shown(pilot, AddToDatasetScreen, what="form")
        app.screen.query_one("#to-dataset-name", Input).value = dataset
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: f"thread {empty.thread_id} holds no messages" in screen_text(app),
            what="why nothing was added",
        )
        assert app.screen.query_one("#to-dataset-name", Input).value == dataset
        assert len(DatasetStore().load(dataset).examples) == 1
