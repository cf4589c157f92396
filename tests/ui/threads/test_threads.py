"""The Threads screen in the app, against the real agent server.

Each test tags its threads with a unique metadata value and searches for that tag, so
it sees only its own threads on the shared server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.client.models import Thread
from agent_tui.settings.target import RemoteServer
from agent_tui.threads.query import ThreadQuery
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.screens.threads.create import ThreadCreateScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from agent_tui.tui.screens.threads.search import ThreadSearchScreen
from tests.support.screen import clear_toasts, toast_saying
from tests.support.threads import counter_steps, page_to_the_end, tag
from tests.support.waiting import WaitFor, workers_done

SIZE = (130, 40)


@asynccontextmanager
async def threads_app(
    url: str,
    wait_for: WaitFor,
    query: ThreadQuery,
    *,
    readonly: bool = False,
    notifications: bool = False,
) -> AsyncIterator[tuple[AgentTuiApp, Pilot[None], ThreadsScreen]]:
    """The app on `url`, showing the Threads screen for `query`, first page loaded (and
    the notifications it shows, with `notifications`)."""
    app = AgentTuiApp(RemoteServer(url), readonly=readonly)
    async with app.run_test(size=SIZE, notifications=notifications) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="connect")
        assert app.client is not None
        screen = ThreadsScreen(app.client, query)
        await app.push_screen(screen)
        await wait_for(pilot, lambda: screen.total is not None, what="the first page")
        await pilot.pause()
        yield app, pilot, screen


def ids(screen: ThreadsScreen) -> list[str]:
    return [thread.thread_id for thread in screen.table.visible_items]


def cells(screen: ThreadsScreen, row: int) -> list[str]:
    return [cell.plain for cell in screen.table.get_row_at(row)]


async def make(client: AgentServerClient, label: str, count: int, **metadata: Any) -> list[Thread]:
    """`count` threads tagged `label`: counter threads (interrupted) unless `idle=True`."""
    idle = metadata.pop("idle", False)
    made = []
    for i in range(count):
        meta = {"suite": label, "i": i, **metadata}
        if idle:
            made.append(await client.threads.create(metadata=meta))
        else:
            made.append(
                await client.threads.create(
                    metadata={"graph_id": "counter", **meta}, supersteps=counter_steps(i + 1)
                )
            )
    return made


async def search_with(pilot: Pilot[None], screen: ThreadsScreen, **fields: str) -> None:
    """Fill the search form (`s`) with `fields` and run the search."""
    await pilot.press("s")
    form = pilot.app.screen
    assert isinstance(form, ThreadSearchScreen)
    for name, value in fields.items():
        widget = form.query_one(f"#search-{name.replace('_', '-')}")
        if isinstance(widget, Select):
            widget.value = value
        else:
            assert isinstance(widget, Input)
            widget.value = value
    await pilot.click("#search")
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()
    assert pilot.app.screen is screen


async def test_search_by_status_metadata_sort_and_page_size(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    busy = await make(client, label, 3)  # interrupted, created in order
    idle = await make(client, label, 2, idle=True)
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(agent_server_url, wait_for, query) as (_app, pilot, screen):
        # Newest update first by default.
        assert ids(screen) == [t.thread_id for t in reversed(busy + idle)]
        assert screen.total == 5
        first = cells(screen, 0)
        assert first[0] == "…" + idle[-1].thread_id[-8:]
        assert first[1] == "idle"
        assert cells(screen, 4)[1:3] == ["interrupted", "counter"]
        assert "5 match" in str(screen.query_one("#resource-heading").render())

        await search_with(pilot, screen, status="interrupted")
        assert sorted(ids(screen)) == sorted(t.thread_id for t in busy)
        assert screen.total == 3

        await search_with(pilot, screen, status="any", metadata=f"suite={label} i=1")
        assert sorted(ids(screen)) == sorted([busy[1].thread_id, idle[1].thread_id])

        await search_with(
            pilot, screen, metadata=f"suite={label}", sort_by="created_at", sort_order="asc"
        )
        assert ids(screen) == [t.thread_id for t in busy + idle]

        await search_with(pilot, screen, page_size="2")
        assert ids(screen)[:2] == [busy[0].thread_id, busy[1].thread_id]
        # The table asks for more as the cursor nears the end: all five arrive.
        await page_to_the_end(pilot, screen.table, wait_for)
        assert ids(screen) == [t.thread_id for t in busy + idle]


async def test_bad_search_input_stays_in_the_form(agent_server_url: str, wait_for: WaitFor) -> None:
    query = ThreadQuery(metadata={"suite": tag()})
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, screen):
        await pilot.press("s")
        form = app.screen
        assert isinstance(form, ThreadSearchScreen)
        form.query_one("#search-page-size", Input).value = "5000"
        await pilot.click("#search")
        assert "page size: must be between 1 and 1000, got 5000" in str(
            form.query_one("#search-error").render()
        )
        assert app.screen is form
        await pilot.press("escape")
        assert screen.is_current


async def test_create_empty_with_metadata_and_from_supersteps(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, screen):
        assert screen.total == 0
        # n: the form starts with the search's metadata, so the thread shows up here.
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, ThreadCreateScreen)
        assert form.metadata_text == f"suite={label}"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen and screen.table.row_count == 1)
        (plain,) = screen.table.items
        assert plain.metadata == {"suite": label}
        assert screen.table.selected_item == plain

        await pilot.press("n")
        form = app.screen
        assert isinstance(form, ThreadCreateScreen)
        form.query_one("#create-metadata", Input).value = f"suite={label} graph_id=counter who=ann"
        form.query_one("#create-supersteps", TextArea).text = (
            '[{"updates": [{"values": {"n": 0}, "as_node": "__input__"}]},'
            ' {"updates": [{"values": {"n": 4, "items": [4]}, "as_node": "inc"}]}]'
        )
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen and screen.table.row_count == 2)
        made = screen.table.selected_item
        assert made is not None and made.metadata == {
            "suite": label,
            "graph_id": "counter",
            "who": "ann",
        }
        assert made.status == "interrupted"
        assert (await client.threads.get_state(made.thread_id)).values == {"n": 4, "items": [4]}


async def test_a_failed_supersteps_create_keeps_the_form_and_leaves_no_thread(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    query = ThreadQuery(metadata={"suite": label})
    steps = '[{"updates": [{"values": {"n": 1}, "as_node": "__input__"}]}]'
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, _screen):
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, ThreadCreateScreen)
        # A graph the server does not have: it creates the thread, cannot build the
        # state, and answers 201 with a `detail`.
        form.query_one("#create-metadata", Input).value = f"suite={label} graph_id=nope"
        form.query_one("#create-supersteps", TextArea).text = steps
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.error is not None, what="the error")
        assert form.is_current
        assert "Graph 'nope' not found" in (form.error or "")
        assert "The empty thread the server had created was removed" in (form.error or "")
        assert form.query_one("#create-supersteps", TextArea).text == steps
        assert await client.threads.search(metadata={"suite": label}) == []


async def test_copy_and_delete(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    (original,) = await make(client, label, 1)
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, screen):
        await pilot.press("C")
        await wait_for(pilot, lambda: screen.table.row_count == 2, what="the copy")
        copy = screen.table.selected_item
        assert copy is not None and copy.thread_id != original.thread_id
        assert copy.metadata == original.metadata
        history = await client.threads.get_history(copy.thread_id, limit=10)
        assert history[0].values == {"n": 1, "items": [1]}

        # ctrl+d asks first; "n" keeps the thread.
        await pilot.press("ctrl+d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert screen.table.row_count == 2
        await pilot.press("ctrl+d")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the delete")
        assert ids(screen) == [original.thread_id]
        with pytest.raises(NotFound):
            await client.threads.get(copy.thread_id)


async def test_a_delete_updates_the_match_count_in_the_heading(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    await make(client, label, 2, idle=True)
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, screen):
        heading = screen.query_one("#resource-heading")
        assert "2 match" in str(heading.render())
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the delete")
        assert "1 match" in str(heading.render())


async def test_enter_opens_the_thread_view(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    (thread,) = await make(client, label, 1)
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(agent_server_url, wait_for, query) as (app, pilot, screen):
        await pilot.press("enter")
        view = app.screen
        assert isinstance(view, ThreadViewScreen)
        assert view.thread_id == thread.thread_id
        await wait_for(pilot, lambda: view.checkpoint_view.state is not None)
        assert view.checkpoint_view.state is not None
        assert view.checkpoint_view.state.values["n"] == 1
        await pilot.press("escape")
        assert app.screen is screen


async def test_read_only_refuses_every_change(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    await make(client, label, 1)
    query = ThreadQuery(metadata={"suite": label})
    async with threads_app(
        agent_server_url, wait_for, query, readonly=True, notifications=True
    ) as (
        app,
        pilot,
        screen,
    ):
        for key, what in [
            ("n", "create a thread"),
            ("ctrl+d", "delete a thread"),
            ("C", "copy a thread"),
        ]:
            await clear_toasts(pilot)
            await pilot.press(key)
            await toast_saying(pilot, f"Read-only mode: cannot {what}")
            assert app.screen is screen, key
        await workers_done(app)
        assert await client.threads.count(metadata={"suite": label}) == 1
