"""The runs screen says what each run's model and tool calls were and their tokens, when
this machine's trace store has the run's trace (a local server agent-tui started), and
says plainly that a run is not traced here otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable

from agent_tui.local.trace_collector import TraceCollector, default_folder
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_runs import ThreadRunsScreen
from tests.support.traces import finished_trace, run_weather_agent, traced_agent_server
from tests.support.waiting import WaitFor, screen_shown


async def runs_of(
    app: AgentTuiApp, pilot: Any, wait_for: WaitFor, thread_id: str
) -> dict[str, str]:
    """Open the thread's runs (`:runs ID`); its one run's cells by column heading."""
    await screen_shown(pilot, ServerInfoScreen, what="home")
    graphs = app.screen.query_one("#graphs", DataTable)
    await wait_for(pilot, lambda: graphs.row_count > 0, what="the graphs")
    await pilot.press("colon", *f"runs {thread_id}", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
    screen: Any = app.screen
    table = screen.table
    await wait_for(pilot, lambda: table.row_count == 1, what="the run")
    headers = [str(column.label) for column in table.columns.values()]
    return dict(zip(headers, [cell.plain for cell in table.get_row_at(0)], strict=True))


@pytest.fixture(scope="module")
def traced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, TraceCollector]]:
    """A server tracing to a collector on this machine's store (the one the app reads)."""
    data_dir = tmp_path_factory.mktemp("traced-server")
    with (
        TraceCollector(default_folder()) as collector,
        traced_agent_server(collector, data_dir) as url,
    ):
        yield url, collector


async def test_a_traced_runs_calls_and_tokens_are_listed(
    traced_server: tuple[str, TraceCollector], wait_for: WaitFor
) -> None:
    url, collector = traced_server
    thread_id, run_id = run_weather_agent(url, "Weather in Paris?", {})
    finished_trace(collector, thread_id=thread_id, calls=3)

    app = AgentTuiApp(RemoteServer(url), readonly=True)
    async with app.run_test(size=(160, 40)) as pilot:
        shown = await runs_of(app, pilot, wait_for, thread_id)
        assert (shown["Calls"], shown["Tokens"]) == ("2/1", "55→16")

        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the run")
        detail: Any = app.screen
        trace = detail.data["trace"]
        assert (trace["model_calls"], trace["tool_calls"], trace["input_tokens"]) == (2, 1, 55)
        assert 0 < trace["model_seconds"] <= trace["wall_seconds"]
        assert detail.data["run_id"] == run_id


async def test_a_run_not_traced_here_says_so(agent_server_url: str, wait_for: WaitFor) -> None:
    async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
        thread_id = (await http.post("/threads", json={})).json()["thread_id"]
        body = {"assistant_id": "ticker", "input": {}, "context": {"ticks": 1, "delay": 0.01}}
        await http.post(f"/threads/{thread_id}/runs/wait", json=body)

    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(160, 40)) as pilot:
        shown = await runs_of(app, pilot, wait_for, thread_id)
        assert (shown["Calls"], shown["Tokens"]) == ("—", "—")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the run")
        detail: Any = app.screen
        assert detail.data["trace"].startswith("not traced here")
