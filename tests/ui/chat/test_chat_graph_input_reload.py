"""A graph without `messages` whose input schema changes while its chat is open: the
prompt's placeholder follows the app's live reload, and a send that fits the new schema
is not refused for the old one, also when someone else's server reloaded it (the app
learns nothing of that reload)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from agent_tui.assistants.graph_input import graph_input
from agent_tui.client import AgentServerClient
from agent_tui.settings.target import LocalServer, RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import ended, humans, mounted_pane, type_and_send
from tests.support.screen import screen_text, toast_saying
from tests.support.serve import Serve
from tests.support.waiting import WaitFor, screen_shown

GRAPH = """
from typing import TypedDict

from langgraph.graph import START, StateGraph


class Input(TypedDict):
    {key}: str


class State(TypedDict, total=False):
    {key}: str
    echo: str


def step(state: State) -> State:
    return {{"echo": state["{key}"]}}


builder = StateGraph(State, input_schema=Input)
builder.add_node("step", step)
builder.add_edge(START, "step")
graph = builder.compile()
"""


def keyed_project(folder: Path, key: str) -> Path:
    """A project whose graph `keyed` takes `{key: str}` and takes no messages."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keyed.py").write_text(GRAPH.format(key=key))
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"keyed": "./keyed.py:graph"}, "env": {}}))
    return config


async def open_chat(app: AgentTuiApp, pilot: Pilot[None], wait_for: WaitFor) -> None:
    """From home, `c` on the graph: a new chat with it."""
    await screen_shown(pilot, ServerInfoScreen, timeout=120, what="home")
    table = app.screen.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: table.row_count == 1, what="the graph")
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, ThreadViewScreen), what="the chat")


async def test_the_placeholder_follows_a_reload_and_a_send_fits_the_new_schema(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    config = keyed_project(tmp_path / "project", "topic")
    app = AgentTuiApp(LocalServer(config_path=config, data_dir=tmp_path / "data"), reload=True)
    async with app.run_test(size=(150, 45), notifications=True) as pilot:
        await open_chat(app, pilot, wait_for)
        pane = await mounted_pane(app, pilot, wait_for)
        await wait_for(
            pilot, lambda: '{"topic": ""' in screen_text(app), what="the placeholder's keys"
        )

        (config.parent / "keyed.py").write_text(GRAPH.format(key="subject"))
        await toast_saying(pilot, "graphs refreshed", timeout=90)
        await wait_for(pilot, lambda: '{"subject": ""' in screen_text(app), what="the new keys")
        assert '{"topic": ""' not in screen_text(app)

        await type_and_send(pilot, pane, '{"subject": "owls"}')
        await wait_for(pilot, lambda: ended(pane), what="the run")
        assert not pane.input_error.display
        assert humans(pane) == ['{\n  "subject": "owls"\n}']
        await pilot.press("ctrl+q")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """`agent-tui serve` on a keyed project (its live reload on): the config and URL."""
    config = keyed_project(tmp_path / "served", "topic")
    serve = Serve(tmp_path / "home", config.parent)
    try:
        yield config, serve.url()
    finally:
        serve.stop()


async def input_keys(client: AgentServerClient) -> set[str]:
    [assistant] = await client.assistants.search(graph_id="keyed")
    return set((await graph_input(client, assistant.assistant_id)).keys)


@pytest.mark.timeout(240)
async def test_a_send_fitting_a_schema_changed_elsewhere_is_not_refused(
    served: tuple[Path, str], wait_for: WaitFor
) -> None:
    config, url = served
    assert url.startswith("http"), f"serve printed {url!r}"
    app = AgentTuiApp(RemoteServer(url))
    async with app.run_test(size=(150, 45)) as pilot:
        await open_chat(app, pilot, wait_for)
        pane = await mounted_pane(app, pilot, wait_for)
        await wait_for(
            pilot, lambda: '{"topic": ""' in screen_text(app), what="the placeholder's keys"
        )

        # The server reloads the new schema; the app is not told.
        (config.parent / "keyed.py").write_text(GRAPH.format(key="subject"))
        client = app.client
        assert client is not None
        for _ in range(600):
            if "subject" in await input_keys(client):
                break
            await asyncio.sleep(0.1)
        assert "subject" in await input_keys(client)

        await type_and_send(pilot, pane, '{"subject": "owls"}')
        await wait_for(pilot, lambda: ended(pane), what="the run")
        assert not pane.input_error.display, str(pane.input_error.content)
        assert humans(pane) == ['{\n  "subject": "owls"\n}']
        # … and the placeholder now says what the graph takes.
        assert '{"subject": ""' in screen_text(app)
