"""A server restarted on its data folder: langgraph-api (in-memory runtime) then lists
the system assistant's version 1 more than once. `agent-tui` restarts its embedded
server at every launch, so the detail screen and the chat's version picker must show
such a list with each version once (a row per record crashed them when the version
number was the row key, then showed a new identical "version 1" row per restart)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from textual.widgets import DataTable

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer
from agent_tui.tui.chat.assistant_version_picker import VersionPickerScreen
from tests.support.assistants import SIZE, AssistantsApp, loaded, open_detail
from tests.support.screen import toasts
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

RESTARTS = 6  # it has taken two or three


async def _counter(url: str) -> tuple[Assistant, list[int]]:
    async with AgentServerClient(url) as client:
        [assistant] = await client.assistants.search("counter", metadata={"created_by": "system"})
        versions = await client.assistants.get_versions(assistant.assistant_id, limit=50)
        return assistant, [v.version for v in versions]


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedAgentServer]:
    data = tmp_path_factory.mktemp("restarted-server")
    for _ in range(RESTARTS):
        server = EmbeddedAgentServer(DEMO_CONFIG, data_dir=data, log_file=data / "server.log")
        server.start()
        _, numbers = asyncio.run(_counter(server.url))
        if len(numbers) > len(set(numbers)):
            try:
                yield server
            finally:
                server.stop()
            return
        server.stop()
    pytest.fail(f"no repeated version number after {RESTARTS} restarts: {numbers}")


@pytest.fixture
async def client(restarted: EmbeddedAgentServer) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(restarted.url) as client:
        yield client


async def test_the_detail_lists_each_version_once_and_follows_the_cursor(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant, numbers = await _counter(client.base_url)
    app = AssistantsApp(client, graph_id="counter")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, wait_for, app)
        detail = await open_detail(pilot, wait_for, app, assistant.assistant_id)
        table = detail.query_one("#versions", DataTable)
        shown = [int(table.get_row_at(i)[0].plain) for i in range(table.row_count)]
        assert len(numbers) > len(set(numbers))  # the server repeats a version
        assert shown == list(dict.fromkeys(numbers))  # each version once, in the server's order
        assert [table.get_row_at(i)[3].plain for i in range(table.row_count)].count("● active") == 1
        await pilot.press("down")
        assert detail.highlighted_version is detail.versions[table.cursor_row]
        await pilot.press("r")  # a reload keeps the cursor on the same record
        await wait_for(pilot, lambda: not table.loading and table.row_count == len(shown))
        assert detail.highlighted_version is detail.versions[table.cursor_row]
        assert not any("Something went wrong" in toast for toast in toasts(app))


async def test_the_chat_version_picker_lists_each_version_once_and_pins_the_one_chosen(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant, numbers = await _counter(client.base_url)
    chosen: list[object] = []

    app = ShellHarness()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.push_screen(VersionPickerScreen(client, assistant), chosen.append)
        await wait_for(pilot, lambda: isinstance(app.screen, VersionPickerScreen))
        picker = app.screen
        assert isinstance(picker, VersionPickerScreen)
        await wait_for(pilot, lambda: picker.is_mounted and not picker.table.loading)
        await wait_for(pilot, lambda: picker.table.row_count > 0)
        shown = [picker.table.get_row_at(i)[0].plain for i in range(picker.table.row_count)]
        assert shown == [f"v{n}" for n in sorted(set(numbers), reverse=True)]
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: bool(chosen), what="the choice")
    pinned = chosen[0]
    assert getattr(pinned, "version", None) == sorted(numbers)[0]
