"""The Assistants screen against the real server: list, create, update, delete, graph."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from assistants_support import SIZE, AssistantsApp, WaitFor, loaded, unique

from agent_tui.client import AgentServerClient


@pytest.fixture
async def client(agent_server_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(agent_server_url) as client:
        yield client


async def test_the_table_lists_one_graphs_assistants_and_f_cycles_graphs(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    name = unique("listed")
    created = await client.assistants.create("counter", {"step": 2}, name)
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, wait_for, app)
        screen = app.assistants
        row = [cell.plain for cell in screen.table.get_row(created.assistant_id)]
        assert row[0] == name and row[1] == "counter" and row[2] == "1"
        assert row[3].startswith("just now") and row[4] == created.assistant_id[:8]
        assert {a.graph_id for a in screen.table.items} == {"counter"}
        assert {"chat", "counter", "loop"} <= set(screen.graphs)

        await pilot.press("f")  # the next graph after counter
        await wait_for(
            pilot, lambda: screen.graph_filter != "counter" and screen.table.loaded_count > 0
        )
        assert {a.graph_id for a in screen.table.items} == {screen.graph_filter}
