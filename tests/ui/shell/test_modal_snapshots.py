"""How the modals look, opened the way a user opens them, on fixed data (stable run to run).

One fake agent server (`tests.support.fixed_servers.agent_server`) answers with the fixed
threads (filtered by status), thread history and assistants the other snapshot modules
use (fixed ids and timestamps). Screens are opened through the app's routes
(`open_resource`) and keys, and recognised by their class name, so these tests do not
depend on which module holds which screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from textual.command import CommandList
from textual.pilot import Pilot
from textual.widgets import TextArea

from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from tests.support.fixed_servers import ASSISTANTS, HISTORY, THREAD_ID, THREADS
from tests.support.shell import ShellHarness
from tests.support.snapshots import harness, showing, shown
from tests.support.waiting import WaitFor


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
