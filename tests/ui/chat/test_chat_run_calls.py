"""The chat says what a run's model and tool calls were: a quiet totals line once a run
ends (from the trace store when the run was traced here, else from the live events),
and, with `f5`, a line per call live from the `events` stream mode, on a server that
traces nowhere. Server text in those lines (a model's name, a tool's error) is text."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agent_tui.chat.items import NoticeItem
from agent_tui.client import AgentServerClient
from agent_tui.local.trace_collector import TraceCollector, default_folder
from agent_tui.tui.chat.blocks import NoticeBlock
from agent_tui.tui.chat.pane import ChatPane
from tests.support.chat import SIZE, chat_app, chat_thread, ended, pane_of, type_and_send
from tests.support.hostile_text import terminal_controls
from tests.support.screen import screen_text
from tests.support.traces import traced_agent_server, untraced_agent_server
from tests.support.waiting import WaitFor

HOSTILE_MODEL = "[bold]gpt[/] \x1b[2Jstandin"
HOSTILE_ERROR = "[link=file:///etc/passwd]no city \x1b[31mred\x1b[0m"


@pytest.fixture(scope="module")
def traced_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The traced graphs' server, tracing to a collector on the store the app reads."""
    data_dir = tmp_path_factory.mktemp("chat-traced-server")
    with (
        TraceCollector(default_folder()) as collector,
        traced_agent_server(collector, data_dir) as url,
    ):
        yield url


@pytest.fixture(scope="module")
def untraced_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with untraced_agent_server(tmp_path_factory.mktemp("chat-untraced-server")) as url:
        yield url


@pytest.fixture
async def traced(traced_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(traced_url) as client:
        yield client


@pytest.fixture
async def untraced(untraced_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(untraced_url) as client:
        yield client


def notices(pane: ChatPane) -> list[str]:
    return [item.text for item in pane.model.items if isinstance(item, NoticeItem)]


def totals_line(pane: ChatPane) -> str | None:
    return next((text for text in notices(pane) if text.startswith("run totals:")), None)


def shown_notices(pane: ChatPane) -> list[str]:
    """The notice lines as painted (plain text); a block mounted but not composed yet
    shows none."""
    return [
        str(line.render())
        for block in pane.query(NoticeBlock)
        for line in block.query(".notice-text")
    ]


async def ended_and_looked_up(pilot: Any, pane: ChatPane, wait_for: WaitFor) -> None:
    """Wait for the run's end, then for the look-up of its totals to finish."""
    await wait_for(pilot, lambda: ended(pane), what="the run's end")
    await wait_for(
        pilot,
        lambda: not any(w.group == "chat-totals" and w.is_running for w in pane.workers),
        what="the totals' look-up",
    )


async def weather_chat(
    client: AgentServerClient, configurable: dict[str, Any] | None = None
) -> tuple[Any, Any]:
    assistant = await client.assistants.create(
        "weather", config={"configurable": configurable or {}}
    )
    thread = await chat_thread(client, assistant)
    return chat_app(client, thread.thread_id, assistant)


async def test_a_traced_run_ends_with_its_totals_from_the_trace(
    traced: AgentServerClient, wait_for: WaitFor
) -> None:
    app, _ = await weather_chat(traced)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "Weather in Paris?")
        await wait_for(pilot, lambda: totals_line(pane) is not None, what="the run's totals")
        line = totals_line(pane)
        assert line is not None
        assert line.startswith("run totals: 2 model calls, 1 tool call, tokens 55→16, model time")
        assert " of " in line  # model time against the run's wall time
        # No live calls were asked for: the totals are the only line of agent-tui's.
        assert notices(pane) == [line]
        await wait_for(
            pilot,
            lambda: any("2 model calls, 1 tool call" in text for text in shown_notices(pane)),
            what="the totals line shown",
        )


async def test_a_model_that_reports_no_tokens_is_said_not_to_have(
    traced: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await traced.assistants.create("chat")  # agent-tui's demo chat
    thread = await chat_thread(traced, assistant)
    app, _ = chat_app(traced, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: totals_line(pane) is not None, what="the run's totals")
        line = totals_line(pane)
        assert line is not None
        assert line.startswith("run totals: 1 model call, 0 tool calls, tokens not reported")
        assert "0→0" not in line


async def test_live_calls_show_each_call_of_a_run_not_traced_here(
    untraced: AgentServerClient, wait_for: WaitFor
) -> None:
    app, _ = await weather_chat(untraced)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await pilot.press("f5")
        assert "events" in pane.stream_modes
        await type_and_send(pilot, pane, "Weather in Paris?")
        await wait_for(pilot, lambda: totals_line(pane) is not None, what="the run's totals")
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        *calls, totals = notices(pane)
        assert totals.startswith("run totals: 2 model calls, 1 tool call, tokens 55→16")
        first, tool, second = calls
        assert first.startswith("model call · agent · ChatOpenAI (gpt-standin-mini, openai)")
        assert first.endswith("· tool_calls") and "tokens 21→7" in first
        assert tool.startswith("tool call · tools · lookup_weather · ")
        assert "tokens 34→9" in second and second.endswith("· stop")
        # The lines sit with the run's messages: each model call before its answer.
        assert "running…" not in " ".join(shown_notices(pane))

        await pilot.press("f5")  # off again: the next run streams no events
        assert "events" not in pane.stream_modes


async def test_an_untraced_run_without_live_calls_says_nothing(
    untraced: AgentServerClient, wait_for: WaitFor
) -> None:
    app, _ = await weather_chat(untraced)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "Weather in Paris?")
        await ended_and_looked_up(pilot, pane, wait_for)
        assert notices(pane) == []


async def test_a_traced_run_that_called_nothing_ends_without_totals(
    traced: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await traced.assistants.create("plain")  # no model, no tool
    thread = await chat_thread(traced, assistant)
    app, _ = chat_app(traced, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "anything?")
        await ended_and_looked_up(pilot, pane, wait_for)
        assert "Nothing to look up." in screen_text(app)
        assert notices(pane) == []


async def test_a_model_name_and_an_error_with_markup_and_escapes_show_as_text(
    untraced: AgentServerClient, wait_for: WaitFor
) -> None:
    configurable = {"model_name": HOSTILE_MODEL, "weather_error": HOSTILE_ERROR}
    app, _ = await weather_chat(untraced, configurable)
    async with app.run_test(size=(240, 45)) as pilot:
        pane = pane_of(app)
        await pilot.press("f5")
        await type_and_send(pilot, pane, "Weather in Paris?")
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        await wait_for(
            pilot, lambda: any("failed: " in line for line in notices(pane)), what="the tool's end"
        )
        await pilot.pause()
        painted = screen_text(app)
        assert terminal_controls(painted) == [], painted
        assert "[bold]gpt[/] " in painted  # the model's name as written, not styled
        assert "failed: ValueError: [link=file:///etc/passwd]no city red" in painted
        assert app.is_running
