"""Threads in bulk and across the server: paging through 600 (six pages; thousands are the
benchmark's, benchmarks/threads_table.py), the attention list,
`:threads`, `:thread <id>` and `:attention` from command mode, and hostile text."""

from __future__ import annotations

from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.client.events import CustomEvent
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.screens.threads.attention import AttentionScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.hostile_screens import drawn_inertly
from tests.support.hostile_text import EVERYTHING, MARKER, MARKUP_SHAPES
from tests.support.screen import painted_control_codes, screen_text, toast_saying
from tests.support.threads import (
    HOSTILE,
    SHOWN,
    chat_steps,
    counter_steps,
    create_many,
    hostile_thread,
    page_to_the_end,
    tag,
)
from tests.support.waiting import WaitFor, screen_shown, workers_done

SIZE = (130, 40)
MANY = 600  # 2,500 took 95 s of a worker and slowed every search of the shared server


async def connected(app: AgentTuiApp, pilot: Pilot[None], wait_for: WaitFor) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="connect")


async def test_paging_through_pages_of_threads_to_the_last(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    await create_many(client, MANY, {"suite": label})
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await connected(app, pilot, wait_for)
        assert await app.run_command(f"threads suite={label}")
        screen = app.screen
        assert isinstance(screen, ThreadsScreen)
        await wait_for(pilot, lambda: screen.table.row_count > 0, what="the first page")
        table = screen.table
        assert screen.total == MANY
        assert table.loaded_count == 100 and table.has_more

        # Going to the end pulls in the next page, again and again, until the last one.
        # (How long that takes is measured by benchmarks/threads_table.py.)
        pages = 1 + await page_to_the_end(pilot, table, wait_for)
        assert pages == MANY // 100
        assert table.loaded_count == MANY
        assert len({t.thread_id for t in table.items}) == MANY
        assert {t.metadata["i"] for t in table.items} == set(range(MANY))
        # Newest first, across every page.
        times = [t.updated_at for t in table.items]
        assert times == sorted(times, reverse=True)  # type: ignore[type-var]
        heading = str(screen.query_one("#resource-heading").render())
        assert f"{MANY} match" in heading and f"{MANY} threads loaded" in heading

        # `/` filters what is loaded, without asking the server.
        await pilot.press("slash")
        for key in "idle":
            await pilot.press(key)
        assert len(table.visible_items) == MANY


async def test_attention_lists_error_and_interrupted_threads(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    interrupted = await client.threads.create(
        metadata={"graph_id": "counter", "suite": label}, supersteps=counter_steps(1)
    )
    failed = await client.threads.create(metadata={"graph_id": "chat", "suite": label})
    stream = client.runs.stream(
        failed.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": "please fail"}]},
        context={"token_delay_ms": 0},
    )
    async with stream:
        async for _event in stream:
            pass
    cancelled = await client.threads.create(metadata={"graph_id": "ticker", "suite": label})
    ticking = client.runs.stream(
        cancelled.thread_id,
        "ticker",
        input={},
        context={"ticks": 1000, "delay": 0.05},
        stream_mode="custom",
    )
    async with ticking:
        async for event in ticking:
            # A tick: the run is running. Cancelled while still pending (a loaded
            # machine), the run never starts and its thread stays idle, not attention.
            if isinstance(event, CustomEvent) and ticking.run_id:
                await client.runs.cancel(cancelled.thread_id, ticking.run_id, wait=True)
                break
    idle = await client.threads.create(metadata={"suite": label})
    waiting = await client.threads.create(metadata={"graph_id": "chat", "suite": label})
    ask = client.runs.stream(
        waiting.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": "deploy to staging"}]},
        context={"token_delay_ms": 0},
    )
    async with ask:
        async for _event in ask:
            pass

    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await connected(app, pilot, wait_for)
        assert await app.run_command("threads")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadsScreen))
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, AttentionScreen), what="attention")
        screen = app.screen
        assert isinstance(screen, AttentionScreen)
        table = screen.table
        await wait_for(pilot, lambda: screen.total is not None and table.row_count > 0)
        # Other tests leave interrupted threads on this server too.
        await page_to_the_end(pilot, table, wait_for)
        statuses = [t.status for t in table.items]
        assert set(statuses) <= {"error", "interrupted"}
        # error threads come first
        assert statuses == sorted(statuses, key=lambda s: s != "error")
        found = {t.thread_id: t.status for t in table.items}
        assert found[failed.thread_id] == "error"
        assert found[interrupted.thread_id] == "interrupted"
        assert idle.thread_id not in found
        assert len(found) == screen.total
        # "Why" tells apart what the two statuses hide.
        why = {t.thread_id: table.get_row(t.thread_id)[-1].plain for t in table.items}
        assert why[failed.thread_id] == "failed: DemoFailure in agent: You asked me to fail."
        assert why[waiting.thread_id] == "waiting: Deploy to staging? (yes/no)"
        assert why[interrupted.thread_id] == "paused: its next node waits to run (a breakpoint)"
        assert why[cancelled.thread_id] == (
            "cancelled: its last run was cancelled before it finished"
        )

        # `:attention` opens the same list.
        assert await app.run_command("attention")
        assert isinstance(app.screen, AttentionScreen)


async def test_thread_command_opens_a_thread_or_names_the_missing_id(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(
        metadata={"graph_id": "counter", "suite": tag()}, supersteps=counter_steps(2)
    )
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await connected(app, pilot, wait_for)
        assert await app.run_command(f"thread {thread.thread_id}")
        screen = app.screen
        assert isinstance(screen, ThreadViewScreen)
        checkpoint = screen.checkpoint_view
        await wait_for(pilot, lambda: checkpoint.state is not None)
        state = checkpoint.state
        assert state is not None and state.values == {"n": 2, "items": [1, 2]}

        missing = "11111111-2222-3333-4444-555555555555"
        assert await app.run_command(f"thread {missing}")
        screen = app.screen
        assert isinstance(screen, ThreadViewScreen)
        await wait_for(pilot, lambda: screen.failure is not None)
        assert f"Thread {missing} not found" in (screen.failure or "")

        # Not an id at all: said at once, and no empty view opens.
        assert not await app.run_command("thread not-a-uuid")
        assert app.screen is screen
        await toast_saying(pilot, "'not-a-uuid' is not a thread id")


async def test_hostile_text_in_the_table_and_raw_view_is_inert(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    label = tag()
    thread = await hostile_thread(client, label)
    # A graph id the table shows as it is (no supersteps: no such graph to apply them to).
    named = await client.threads.create(metadata={"graph_id": HOSTILE, "suite": label})
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(160, 30)) as pilot:
        await connected(app, pilot, wait_for)
        assert await app.run_command(f"threads suite={label}")
        screen = app.screen
        assert isinstance(screen, ThreadsScreen)
        await wait_for(pilot, lambda: screen.table.row_count == 2)
        await pilot.pause()
        first = [cell.plain for cell in screen.table.get_row_at(0)]
        assert first[:2] == ["…" + named.thread_id[-8:], "idle"]
        # The graph id, inert, whole or cut with … at the column's width.
        graph = first[2]
        assert graph == SHOWN or (graph.endswith("…") and SHOWN.startswith(graph[:-1]))
        row = [cell.plain for cell in screen.table.get_row_at(1)]
        assert row[0] == "…" + thread.thread_id[-8:]
        assert row[4] == f"ai: answer {SHOWN}"
        painted = screen_text(app)
        assert f"ai: answer {SHOWN}" in painted
        assert f" {SHOWN} " in painted
        assert "[bold]b" in painted  # shown, not applied
        assert painted_control_codes(app) == []
        # Clicking where the click actions are written (graph, preview) does nothing.
        await pilot.click("#resource-table", offset=(30, 1))
        await pilot.click("#resource-table", offset=(100, 2))
        await pilot.click("#resource-table", offset=(110, 2))
        await pilot.pause()
        assert app.is_running
        # A click on the row under the cursor opens it, which is fine: go back.
        await workers_done(app)
        while not screen.is_current:
            await pilot.press("escape")

        await pilot.press("y")
        await screen_shown(pilot, RawJsonScreen)
        raw = app.screen.query_one(JsonView)
        assert "[@click=app.quit]x[/]" in raw.text
        await pilot.pause()
        assert painted_control_codes(app) == []
        await pilot.click(JsonView, offset=(20, 3))
        await pilot.press("escape")
        assert screen.is_current and app.is_running

        # The thread view of the same thread: the transcript shows the text, inertly.
        screen.table.move_to(thread.thread_id)
        await pilot.press("enter")
        view = app.screen
        assert isinstance(view, ThreadViewScreen)
        await wait_for(pilot, lambda: view.checkpoint_view.state is not None)
        await pilot.pause()
        assert f"answer {SHOWN}" in screen_text(app)
        assert painted_control_codes(app) == []
        await pilot.click(offset=(60, 20))
        assert app.is_running


async def test_markup_shaped_text_in_the_table_is_painted_as_typed(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    """A graph id made of the markup shapes, and a thread whose metadata and messages
    hold them and `EVERYTHING`: the table paints them as typed (cut with … at a column's
    width), nothing a terminal acts on."""
    label = tag()
    shapes = "".join(MARKUP_SHAPES.values())
    await client.threads.create(
        metadata={"graph_id": "chat", "suite": label, EVERYTHING: EVERYTHING},
        supersteps=chat_steps(EVERYTHING, MARKER + shapes + EVERYTHING),
    )
    await client.threads.create(metadata={"graph_id": shapes, "suite": label})
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(240, 30)) as pilot:
        await connected(app, pilot, wait_for)
        assert await app.run_command(f"threads suite={label}")
        screen = app.screen
        assert isinstance(screen, ThreadsScreen)
        await wait_for(pilot, lambda: screen.table.row_count == 2)
        await pilot.pause()
        drawn_inertly(
            app,
            "[link=file:///etc/passw…",
            f"ai: {MARKER}[link=file:///etc/passwd]x[Errno -2] x[bold]x[/]…",
        )
        assert app.is_running
