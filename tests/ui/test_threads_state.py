"""The thread state view and the create/search forms, against the real agent server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, Select, Static, TextArea
from threads_support import (
    SHOWN,
    counter_steps,
    hostile_thread,
    painted_control_codes,
    screen_text,
    tag,
)

from agent_tui.client import AgentServerClient
from agent_tui.screens.raw_json import RawJsonScreen
from agent_tui.screens.thread_create import ThreadCreateScreen
from agent_tui.screens.thread_search import ThreadSearchScreen
from agent_tui.screens.thread_state import ThreadStateScreen
from agent_tui.thread_query import ThreadQuery
from agent_tui.widgets.json_view import JsonView

WaitFor = Callable[..., Awaitable[None]]
SIZE = (130, 50)


class Harness(App[None]):
    """An app that shows one screen and keeps what it was dismissed with."""

    def __init__(self, client: AgentServerClient, screen: Screen[Any]) -> None:
        super().__init__()
        self.client = client
        self.first = screen
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)


@pytest.fixture
async def client(agent_server_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(agent_server_url) as client:
        yield client


def static(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_state_view_shows_transcript_and_inert_hostile_text(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await hostile_thread(client, tag())
    screen = ThreadStateScreen(client, thread.thread_id)
    app = Harness(client, screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.state is not None, what="the state")
        await pilot.pause()
        transcript = static(screen, "#state-transcript")
        assert f"human\nhello {SHOWN}" in transcript
        assert f"ai\nanswer {SHOWN}" in transcript
        assert "chat" in static(screen, "#state-summary")
        painted = screen_text(app)
        assert f"hello {SHOWN}" in painted
        assert painted_control_codes(app) == []

        # Clicking the text that looks like an action does nothing.
        await pilot.click("#state-transcript", offset=(10, 1))
        await pilot.click("#state-transcript", offset=(8, 4))
        assert app.is_running

        # The raw JSON view: the same strings, JSON-escaped, inert.
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen))
        raw = app.screen.query_one(JsonView)
        assert "[@click=app.quit]x[/]" in raw.text
        assert "\x1b" not in raw.text
        await pilot.pause()
        assert painted_control_codes(app) == []
        await pilot.click(JsonView, offset=(10, 5))
        assert app.is_running
        await pilot.press("escape")
        assert app.screen is screen


async def test_state_view_of_a_counter_thread_shows_values_and_next(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(
        metadata={"graph_id": "counter"}, supersteps=counter_steps(2)
    )
    screen = ThreadStateScreen(client, thread.thread_id)
    app = Harness(client, screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.state is not None, what="the state")
        summary = static(screen, "#state-summary")
        assert "interrupted" in summary
        assert "Next        dbl" in summary
        values = screen.query_one("#state-values", JsonView)
        assert values.data == {"n": 2, "items": [1, 2]}
        assert not screen.query_one("#state-transcript").display


async def test_state_view_of_an_unknown_thread_names_the_id(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    missing = "00000000-0000-0000-0000-00000000beef"
    screen = ThreadStateScreen(client, missing)
    app = Harness(client, screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.failure is not None, what="the failure")
        assert screen.failure == f"Thread {missing} not found on this server (no such thread)."
        assert f"Thread {missing} not found" in static(screen, "#state-error")


async def test_search_form_checks_input_and_returns_the_query(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    screen = ThreadSearchScreen(ThreadQuery(metadata={"graph_id": "chat"}))
    app = Harness(client, screen)
    async with app.run_test(size=SIZE) as pilot:
        metadata = screen.query_one("#search-metadata", Input)
        assert metadata.value == "graph_id=chat"
        metadata.value = "graph_id"
        await pilot.press("enter")
        assert "metadata: expected key=value, got 'graph_id'" in static(screen, "#search-error")
        assert app.screen is screen and metadata.value == "graph_id"

        metadata.value = "graph_id=counter n=3"
        screen.query_one("#search-status", Select).value = "interrupted"
        screen.query_one("#search-sort-by", Select).value = "created_at"
        screen.query_one("#search-sort-order", Select).value = "asc"
        screen.query_one("#search-page-size", Input).value = "25"
        await pilot.click("#search")
        await pilot.pause()
        assert app.results == [
            ThreadQuery(
                status="interrupted",
                metadata={"graph_id": "counter", "n": 3},
                sort_by="created_at",
                sort_order="asc",
                page_size=25,
            )
        ]


async def test_create_form_keeps_the_text_on_bad_json_and_server_errors(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    label = tag()
    screen = ThreadCreateScreen(client)
    app = Harness(client, screen)
    async with app.run_test(size=SIZE) as pilot:
        screen.query_one("#create-metadata", Input).value = f"graph_id=counter suite={label}"
        area = screen.query_one("#create-supersteps", TextArea)
        area.text = '[{"updates": [{"values": {"n": 1}, "as_node": "inc"}]'
        await pilot.press("ctrl+s")
        assert "supersteps: invalid JSON" in static(screen, "#create-error")
        assert "line 1, column 54" in static(screen, "#create-error")

        # Good JSON, but a node the graph does not have: the server's own words.
        area.text = '[{"updates": [{"values": {"n": 1}, "as_node": "nope"}]}]'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "nope" in (screen.error or ""), what="the server error")
        assert "Node nope does not exist" in static(screen, "#create-error")
        assert app.screen is screen
        assert area.text == '[{"updates": [{"values": {"n": 1}, "as_node": "nope"}]}]'
        assert (
            screen.query_one("#create-metadata", Input).value == f"graph_id=counter suite={label}"
        )

        # A graph the server does not have: it answers 201 with a `detail` (PartialFailure).
        metadata = screen.query_one("#create-metadata", Input)
        metadata.value = f"graph_id=nope suite={label}"
        area.text = '[{"updates": [{"values": {"n": 5}, "as_node": "inc"}]}]'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "nope" in (screen.error or ""), what="the partial failure")
        error = static(screen, "#create-error")
        assert "Could not build the thread's state" in error
        assert "Graph 'nope' not found" in error
        assert app.screen is screen and metadata.value == f"graph_id=nope suite={label}"

        metadata.value = f"graph_id=counter suite={label}"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(app.results), what="the new thread")
        (thread,) = app.results
        assert thread.metadata == {"graph_id": "counter", "suite": label}
        assert thread.values["n"] == 5
