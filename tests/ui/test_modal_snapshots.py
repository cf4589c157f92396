"""How the modals look, opened the way a user opens them, on fixed data (stable run to run).

One fake agent server answers with the fixed threads (filtered by status), thread history and assistants the
other snapshot modules use (fixed ids and timestamps). Screens are opened through the
app's routes (`open_resource`) and keys, and recognised by their class name, so these
tests do not depend on which module holds which screen.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from shell_support import ShellHarness
from snapshot_support import steady_cursors
from test_assistants_snapshot import ASSISTANTS
from test_assistants_snapshot import fixed_server as assistants_server
from test_thread_view_snapshot import HISTORY, THREAD_ID
from test_thread_view_snapshot import fake_server as thread_view_server
from test_threads_snapshot import THREADS
from test_threads_snapshot import fake_server as threads_server
from textual.command import CommandList
from textual.pilot import Pilot
from textual.widgets import TextArea

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen

WaitFor = Callable[..., Awaitable[None]]  # the `wait_for` fixture of conftest.py
Check = Callable[[], bool]

GRAPH = {
    "nodes": [
        {"id": "__start__", "type": "schema", "data": "__start__"},
        {"id": "agent", "type": "runnable", "data": {"name": "agent"}},
        {"id": "approve", "type": "runnable", "data": {"name": "approve"}},
        {"id": "__end__", "type": "schema", "data": "__end__"},
    ],
    "edges": [
        {"source": "__start__", "target": "agent"},
        {"source": "agent", "target": "approve", "conditional": True},
        {"source": "agent", "target": "__end__", "conditional": True},
        {"source": "approve", "target": "__end__"},
    ],
}


def fake_server() -> httpx.MockTransport:
    """Threads, one thread's history and the assistants, each from its snapshot module."""
    threads = threads_server().handler
    thread_view = thread_view_server().handler
    assistants = assistants_server().handler

    def answer(request: httpx.Request) -> Any:
        path = request.url.path
        if path.startswith("/assistants/") and path.endswith("/graph"):
            return httpx.Response(200, json=GRAPH)
        if path.startswith("/assistants"):
            return assistants(request)
        if path == f"/threads/{THREAD_ID}/state":
            return httpx.Response(200, json=HISTORY[0])
        if path.startswith(f"/threads/{THREAD_ID}"):
            return thread_view(request)
        if path in {"/threads/search", "/threads/count"}:
            return threads_with_status(request)
        return threads(request)

    return httpx.MockTransport(answer)


def threads_with_status(request: httpx.Request) -> httpx.Response:
    """The fixed threads, only those of the status asked for (the attention queue asks)."""
    body = json.loads(request.content or b"{}")
    found = [t for t in THREADS if body.get("status") in (None, t["status"])]
    if request.url.path == "/threads/count":
        return httpx.Response(200, json=len(found))
    offset = body.get("offset", 0)
    return httpx.Response(200, json=found[offset : offset + body["limit"]])


def harness() -> ShellHarness:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness()
    app.client = client
    app.connection_status = "connected · http://agent.test"
    return app


def showing(pilot: Pilot[Any], name: str) -> bool:
    """The screen on top is the class called `name`."""
    return type(pilot.app.screen).__name__ == name


async def shown(pilot: Pilot[Any], wait_for: WaitFor, check: Check, what: str) -> None:
    """Until the screen shows what `check` checks, then the last paint, cursors still."""
    await wait_for(pilot, check, what=what)
    steady_cursors(pilot.app)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def threads_loaded(pilot: Pilot[Any], wait_for: WaitFor) -> Any:
    """`:threads`, until its rows are in."""
    app = pilot.app
    assert isinstance(app, ShellHarness)
    assert await app.open_resource("threads")
    screen = app.screen

    def loaded() -> bool:
        table = getattr(screen, "table", None)
        return table is not None and table.row_count == len(THREADS) and not table.loading

    await shown(pilot, wait_for, loaded, "the threads")
    return screen


async def thread_view_loaded(pilot: Pilot[Any], wait_for: WaitFor) -> Any:
    """`:thread <id>` (the thread view, on its chat tab), until history and chat are in."""
    app = pilot.app
    assert isinstance(app, ShellHarness)
    assert await app.open_resource("thread", THREAD_ID)
    screen: Any = app.screen  # the thread view, by whatever module holds it

    def loaded() -> bool:
        return len(screen.history.rows) == len(HISTORY) and screen.thread is not None

    await shown(pilot, wait_for, loaded, "the thread view")
    return screen


def test_confirm_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await threads_loaded(pilot, wait_for)
        await pilot.press("ctrl+d")  # delete the thread under the cursor: asks first
        await shown(pilot, wait_for, lambda: showing(pilot, "ConfirmScreen"), "the question")

    assert snap_compare(harness(), terminal_size=(100, 20), run_before=run_before)


def test_raw_json_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await threads_loaded(pilot, wait_for)
        await pilot.press("y")
        await shown(pilot, wait_for, lambda: showing(pilot, "RawJsonScreen"), "the JSON")

    assert snap_compare(harness(), terminal_size=(100, 30), run_before=run_before)


def test_thread_create_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await threads_loaded(pilot, wait_for)
        await pilot.press("n")
        await shown(pilot, wait_for, lambda: showing(pilot, "ThreadCreateScreen"), "the form")

    assert snap_compare(harness(), terminal_size=(100, 36), run_before=run_before)


def test_thread_search_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await threads_loaded(pilot, wait_for)
        await pilot.press("s")
        await shown(pilot, wait_for, lambda: showing(pilot, "ThreadSearchScreen"), "the form")

    assert snap_compare(harness(), terminal_size=(100, 36), run_before=run_before)


def test_stream_modes_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await thread_view_loaded(pilot, wait_for)
        await pilot.press("f3")
        await shown(pilot, wait_for, lambda: showing(pilot, "StreamModesScreen"), "the modes")

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def test_export_path_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await thread_view_loaded(pilot, wait_for)
        # The chat's prompt has the keys: export through the palette, as a user would.
        await pilot.press("ctrl+p", *"export thread")

        def offered() -> bool:
            found = pilot.app.screen.query(CommandList)
            return bool(found) and any(
                "Export thread" in str(found.first().get_option_at_index(i).prompt)
                for i in range(found.first().option_count)
            )

        await wait_for(pilot, offered, workers=False, what="the export command")
        await pilot.press("enter")
        await shown(pilot, wait_for, lambda: showing(pilot, "PathScreen"), "the path")

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def assistants_listed(pilot: Pilot[Any]) -> bool:
    options = getattr(pilot.app.screen, "assistants", None)
    return showing(pilot, "AssistantPickerScreen") and bool(options)


def test_assistant_picker_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await thread_view_loaded(pilot, wait_for)
        await pilot.press("f4")
        await shown(pilot, wait_for, lambda: assistants_listed(pilot), "the assistants")

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def test_version_picker_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await thread_view_loaded(pilot, wait_for)
        await pilot.press("f4")
        await shown(pilot, wait_for, lambda: assistants_listed(pilot), "the assistants")
        await pilot.press("down", "v")  # the versions of pirate-bot (three of them)

        def versions_listed() -> bool:
            return showing(pilot, "VersionPickerScreen") and bool(
                getattr(pilot.app.screen, "versions", None)
            )

        await shown(pilot, wait_for, versions_listed, "the versions")

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def test_assistant_graph_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ShellHarness)
        assert await app.open_resource("assistants")
        screen = app.screen

        def loaded() -> bool:
            table = getattr(screen, "table", None)
            return table is not None and table.row_count == len(ASSISTANTS)

        await shown(pilot, wait_for, loaded, "the assistants")
        await pilot.press("v")  # the graph of the assistant under the cursor

        def drawn() -> bool:
            graph: Any = pilot.app.screen
            return showing(pilot, "AssistantGraphScreen") and graph.loaded

        await shown(pilot, wait_for, drawn, "the graph")

    assert snap_compare(harness(), terminal_size=(100, 30), run_before=run_before)


def test_fork_as_node_snapshot(
    snap_compare: Callable[..., bool], wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("VISUAL", "EDITOR"):  # the built-in editor, not the user's
        monkeypatch.delenv(variable, raising=False)

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await thread_view_loaded(pilot, wait_for)
        await pilot.click("#history")  # the history has the keys, not the chat's prompt
        await pilot.press("f")  # fork at the newest step: its state in the editor
        await shown(pilot, wait_for, lambda: showing(pilot, "TextEditorScreen"), "the editor")
        values = json.loads(pilot.app.screen.query_one(TextArea).text)
        values["approved"] = True
        pilot.app.screen.query_one(TextArea).text = json.dumps(values)
        await pilot.press("ctrl+s")  # a change: asks which node the fork writes as
        await shown(pilot, wait_for, lambda: showing(pilot, "AsNodeScreen"), "the question")
        assert screen.is_attached

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def test_breakpoints_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await thread_view_loaded(pilot, wait_for)
        screen.query_one("#transcript").focus()  # in the prompt, `b` types
        await pilot.press("b")

        def listed() -> bool:
            return showing(pilot, "BreakpointsScreen") and bool(
                getattr(pilot.app.screen, "nodes", None)
            )

        await wait_for(pilot, listed, what="the nodes")
        await pilot.press("down", "b", "a")  # approve: pause before and after
        await shown(pilot, wait_for, listed, "the breakpoints")

    assert snap_compare(harness(), terminal_size=(120, 32), run_before=run_before)


def test_double_text_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    """`enter` during a run: how to send the message, each way saying what it does."""

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.push_screen(DoubleTextScreen("and what about tomorrow in Paris?"))
        await shown(pilot, wait_for, lambda: showing(pilot, "DoubleTextScreen"), "the picker")

    assert snap_compare(harness(), terminal_size=(100, 30), run_before=run_before)
