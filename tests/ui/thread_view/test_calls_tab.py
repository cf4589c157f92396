"""The thread view's Calls tab (`C`): every model and tool call of the selected
checkpoint's run, as this machine traced it — a real langgraph-api server running a real
`ChatOpenAI` agent (against the tests' OpenAI stand-in), traced by the real `langsmith`
SDK to a collector on the store the app reads. `enter` shows one call whole. A server
whose runs were not traced here gets a sentence saying why, not an empty table; the
Timeline draws each model call as a bar inside its node."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.local.trace_collector import TraceCollector, default_folder
from agent_tui.traces.scoped_calls import read_call, read_scoped_calls
from agent_tui.tui.modals.call_detail import CallDetailScreen
from agent_tui.tui.screens.thread_view.calls_view import CallsView
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.openai_standin import ANSWER
from tests.support.screen import painted_control_codes, screen_text
from tests.support.snapshots import harness, showing, shown
from tests.support.thread_view import counter_thread, loaded, view_app
from tests.support.traces import (
    finished_trace,
    run_weather_agent,
    steady_run,
    traced_agent_server,
)
from tests.support.waiting import WaitFor, screen_shown

QUESTION = "Weather in [bold]Paris[/] [@click=app.quit]x \x1b[31mred\x1b[0m?"
"""Markup-shaped text and an escape sequence: sent to the model, shown as text."""
SYSTEM_PROMPT = "You are a weather bot. Use lookup_weather."  # tests/graphs/traced/agent.py
TALL = (160, 120)  # the call's sections all in view


@pytest.fixture(scope="module")
def traced_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, TraceCollector]]:
    """A traced server, tracing to a collector on the store the app reads."""
    data_dir = tmp_path_factory.mktemp("traced-calls")
    with (
        TraceCollector(default_folder()) as collector,
        traced_agent_server(collector, data_dir) as url,
    ):
        yield url, collector


@pytest.fixture(scope="module")
def traced_thread(traced_server: tuple[str, TraceCollector]) -> tuple[str, str]:
    """A thread of one finished, traced run of the weather agent: the server's URL and
    the thread's id."""
    url, collector = traced_server
    thread_id, _run_id = run_weather_agent(url, QUESTION, {})
    finished_trace(collector, thread_id=thread_id, calls=3)
    return url, thread_id


@pytest.fixture(scope="module")
def demo_thread(traced_server: tuple[str, TraceCollector]) -> tuple[str, str]:
    """A thread of one finished, traced run of agent-tui's demo chat, whose model
    reports no tokens."""
    url, collector = traced_server
    thread_id, _run_id = run_weather_agent(url, "hello", {}, graph="chat")
    finished_trace(collector, thread_id=thread_id, calls=1)
    return url, thread_id


@pytest.fixture
async def traced_client(traced_thread: tuple[str, str]) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(traced_thread[0]) as client:
        yield client


def painted_table(app: App[Any], screen: ThreadViewScreen) -> list[str]:
    """The Calls table's lines as painted (its header first), cut to its region."""
    table = screen.query_one(CallsView).table
    region = table.region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return [line[region.x : region.right] for line in lines]


async def open_calls(
    app: App[Any], screen: ThreadViewScreen, pilot: Pilot[Any], wait_for: WaitFor, calls: int
) -> None:
    """`C` once the history is in, then the calls and their totals."""
    await wait_for(pilot, lambda: loaded(screen), what="the history")
    await pilot.press("C")
    await wait_for(pilot, lambda: len(calls_listed(screen)) == calls, what="the calls")
    await wait_for(pilot, lambda: "model time" in screen_text(app), what="the totals")


def calls_listed(screen: ThreadViewScreen) -> list[dict[str, str]]:
    """The Calls tab's rows as shown, by column heading."""
    table = screen.query_one(CallsView).table
    headings = [str(column.label) for column in table.columns.values()]
    return [
        dict(zip(headings, [cell.plain for cell in table.get_row_at(i)], strict=True))
        for i in range(table.row_count)
    ]


async def test_the_calls_of_a_traced_run_are_listed_with_their_model_and_tokens(
    traced_thread: tuple[str, str], traced_client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = view_app(traced_client, traced_thread[1])
    async with app.run_test(size=(170, 45)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("C")
        await wait_for(pilot, lambda: len(calls_listed(screen)) == 3, what="the calls")

        rows = calls_listed(screen)
        assert [(r["Name"], r["Node"]) for r in rows] == [
            ("ChatOpenAI", "agent"),
            ("lookup_weather", "tools"),
            ("ChatOpenAI", "agent"),
        ]
        assert [(r["Model"], r["Tokens"], r["Finish"]) for r in rows[::2]] == [
            ("gpt-standin-mini (openai)", "21→7", "tool_calls"),
            ("gpt-standin-mini (openai)", "34→9", "stop"),
        ]
        assert rows[1]["Finish"] == "success" and rows[1]["Tokens"] == "—"
        assert all(r["Time"].endswith("s") for r in rows)
        # The totals come after the first screenful of rows (read with the rest).
        totals = "2 model calls, 1 tool call, tokens 55→16, model time"
        await wait_for(pilot, lambda: totals in screen_text(app), what="the run's totals")
        assert "Calls of run " in screen_text(app)


async def test_enter_shows_the_prompt_sent_and_the_answer_as_text(
    traced_thread: tuple[str, str], traced_client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = view_app(traced_client, traced_thread[1])
    async with app.run_test(size=TALL) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("C")
        await wait_for(pilot, lambda: len(calls_listed(screen)) == 3, what="the calls")
        await pilot.press("down", "down", "enter")  # the second model call: the answer
        await screen_shown(pilot, CallDetailScreen, what="the call whole")
        await pilot.pause()

        shown = screen_text(app)
        assert SYSTEM_PROMPT in shown
        assert "Weather in [bold]Paris[/] [@click=app.quit]x red?" in shown  # markup as text
        assert "lookup_weather" in shown and '"temperature": 0.2' in shown
        response = shown[shown.index("Response") :]
        assert ANSWER in response
        assert painted_control_codes(app) == []

        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the thread")


async def test_a_server_not_traced_here_says_why_instead_of_an_empty_table(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)  # the shared server: agent-tui did not start it
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("C")
        await wait_for(
            pilot,
            lambda: "not started by agent-tui" in screen_text(app),
            what="why there are no calls",
        )
        shown = screen_text(app)
        assert "LANGSMITH_ENDPOINT" in shown and "agent-tui traces serve" in shown
        assert not screen.query_one(CallsView).table.display


async def test_the_timeline_draws_each_model_call_inside_its_node(
    traced_thread: tuple[str, str], traced_client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = view_app(traced_client, traced_thread[1])
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("T")
        await wait_for(
            pilot,
            lambda: screen_text(app).count("◇ gpt-standin-mini") == 2,
            what="the model calls on the timeline",
        )
        lines = screen_text(app).splitlines()
        # Each call's line comes under its own `agent` superstep, with a bar.
        for index, line in enumerate(lines):
            if "◇ gpt-standin-mini" in line:
                above = [text for text in lines[:index] if " agent " in text]
                assert above and "█" in line


async def test_a_model_that_reports_no_tokens_is_said_not_to_have_reported_them(
    demo_thread: tuple[str, str], wait_for: WaitFor
) -> None:
    async with AgentServerClient(demo_thread[0]) as client:
        app, screen = view_app(client, demo_thread[1])
        async with app.run_test(size=TALL) as pilot:
            await open_calls(app, screen, pilot, wait_for, calls=1)
            (row,) = calls_listed(screen)
            assert (row["Node"], row["Tokens"]) == ("agent", "—")
            shown = screen_text(app)
            assert "1 model call, 0 tool calls, tokens not reported, model time" in shown
            assert "0→0" not in shown

            await pilot.press("enter")
            await screen_shown(pilot, CallDetailScreen, what="the call whole")
            await pilot.pause()
            assert "tokens not reported" in screen_text(app)


async def test_every_column_of_the_calls_fits_the_right_pane(
    traced_thread: tuple[str, str], traced_client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = view_app(traced_client, traced_thread[1])
    async with app.run_test(size=(160, 48)) as pilot:
        await open_calls(app, screen, pilot, wait_for, calls=3)
        header, *rows = painted_table(app, screen)
        assert screen.query_one(CallsView).table.region.right <= 160
        assert header.split() == ["Name", "Node", "Model", "Tokens", "Time", "TTFT", "Finish"]
        # The cells that matter whole: names, finish reasons, tokens; the model's name
        # before its provider.
        assert "tool_calls" in rows[0] and "21→7" in rows[0] and "gpt-stand" in rows[0]
        assert "lookup_weather" in rows[1] and "stop" in rows[2] and "34→9" in rows[2]


async def test_a_narrow_pane_drops_the_least_needed_columns_whole(
    traced_thread: tuple[str, str], traced_client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = view_app(traced_client, traced_thread[1])
    async with app.run_test(size=(120, 48)) as pilot:
        await open_calls(app, screen, pilot, wait_for, calls=3)
        header, *rows = painted_table(app, screen)
        assert header.split() == ["Name", "Node", "Tokens", "Finish"]
        assert "…" not in header  # dropped whole, not cut
        assert "tool_calls" in rows[0] and "21→7" in rows[0] and "ChatOpenAI" in rows[0]

        await pilot.resize_terminal(160, 48)  # room again: every column comes back
        await wait_for(
            pilot, lambda: "TTFT" in painted_table(app, screen)[0], what="the columns back"
        )
        assert calls_listed(screen)[0]["Tokens"] == "21→7"


def test_call_detail_snapshot(
    traced_thread: tuple[str, str], snap_compare: Callable[..., bool], wait_for: WaitFor
) -> None:
    """The second model call of the traced run (its ids, times and ports made fixed), as
    `enter` opens it."""
    scoped = read_scoped_calls(traced_thread[1], None)
    answer = read_call(scoped.calls[2].id)
    assert answer is not None and answer.finish_reason == "stop"
    run = steady_run(answer)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.app.push_screen(CallDetailScreen(run))
        await shown(pilot, wait_for, lambda: showing(pilot, "CallDetailScreen"), "the call")

    assert snap_compare(harness(), terminal_size=(120, 72), run_before=run_before)
