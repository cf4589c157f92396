"""Fork, replay, the fork tree, export and read-only refusals in the thread view (real server)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select

from agent_tui.client import AgentServerClient
from agent_tui.threads.export import load_export
from agent_tui.tui import editor
from agent_tui.tui.chat.thread_inputs import AsNodeScreen, PathScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.screen import toast_saying, toasts_shown
from tests.support.thread_view import SIZE, counter_thread, loaded, view_app
from tests.support.waiting import WaitFor, screen_shown


async def test_fork_selects_the_branch_and_a_run_continues_from_the_edit(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread = await counter_thread(client, 5)
    edited: list[str] = []

    async def fake_edit(app: Any, text: str, *, title: str = "") -> str:
        edited.append(text)
        values = json.loads(text)
        values["n"] = 100
        return json.dumps(values)

    monkeypatch.setattr(editor, "edit_text", fake_edit)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("down")  # step 1: inc wrote n = 6, dbl is next
        await wait_for(pilot, lambda: screen.checkpoint_view.state.step == 1)  # type: ignore[union-attr]
        step_one = screen.selected_row
        assert step_one is not None

        await pilot.press("f")
        # Pushed is not ready: under load, ctrl+s could reach the modal before its node
        # picker was mounted. Wait for the picker to have the focus, as a user sees it.
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AsNodeScreen) and isinstance(app.focused, Select),
            workers=False,
            what="the node picker",
        )
        # The editor got the state at that checkpoint; the node defaults to its writer.
        assert json.loads(edited[0]) == {"n": 6, "items": [5]}
        assert app.screen.default == "inc"  # type: ignore[attr-defined]
        assert app.screen.nodes == ["inc", "dbl"]  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: screen.selected_row is not None and screen.selected_row.source == "update",
            what="the fork selected",
        )
        fork = screen.selected_row
        assert fork is not None and fork.parent_checkpoint_id == step_one.checkpoint_id
        # Only the change was sent: items did not grow again.
        assert fork.state.values == {"n": 100, "items": [5]}
        assert fork.next == ("dbl",)
        assert screen.checkpoint_view.checkpoint_id == fork.checkpoint_id

        # Run from the fork: dbl doubles the edited value.
        await pilot.press("p")
        await wait_for(
            pilot,
            lambda: (
                screen.selected_row is not None and screen.selected_row.state.values.get("n") == 200
            ),
            what="the run from the fork",
        )
        head = screen.selected_row
        assert head is not None and head.parent_checkpoint_id == fork.checkpoint_id
        assert head.checkpoint_id == screen.history.rows[0].checkpoint_id
        assert screen.checkpoint_view.checkpoint_id == head.checkpoint_id
        await toast_saying(pilot, "Ran from step")


async def test_replay_makes_a_branch_that_the_fork_tree_shows(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        first_head = screen.history.rows[0]
        await pilot.press("down")
        step_one = screen.selected_row
        assert step_one is not None and step_one.step == 1

        await pilot.press("p")
        # A replay copies the checkpoint onto a new branch (source "fork"), then runs dbl.
        await wait_for(pilot, lambda: len(screen.history.rows) == 6, what="the replayed steps")
        replayed, fork_point = screen.history.rows[:2]
        assert screen.selected_row == replayed
        assert (fork_point.source, fork_point.step, replayed.step) == ("fork", 2, 3)
        assert replayed.parent_checkpoint_id == fork_point.checkpoint_id
        assert fork_point.parent_checkpoint_id == step_one.checkpoint_id
        assert replayed.checkpoint_id != first_head.checkpoint_id
        assert replayed.state.values == {"n": 12, "items": [5]}
        children = screen.history.children_of(step_one.checkpoint_id)
        assert {row.checkpoint_id for row in children} == {
            fork_point.checkpoint_id,
            first_head.checkpoint_id,
        }

        # The fork tree: both branches from step 1, the replay on its own branch.
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.fork_tree.branches == 1, what="the fork tree")
        tree = screen.fork_tree
        assert tree.node_for(replayed.checkpoint_id) is not None
        assert tree.node_for(first_head.checkpoint_id) is not None
        # The older run carries on at the top level; the replay is under the branch.
        assert tree.node_for(first_head.checkpoint_id).parent is tree.root  # type: ignore[union-attr]
        branch = tree.node_for(replayed.checkpoint_id).parent  # type: ignore[union-attr]
        assert branch is not None and "branch at step 1" in str(branch.label)

        # Selecting a checkpoint in the tree jumps to it in the history.
        node = tree.node_for(first_head.checkpoint_id)
        assert node is not None
        tree.move_cursor(node)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == first_head.checkpoint_id,
            what="the jump",
        )
        assert screen.selected_row == first_head
        assert screen.tabs.active == "tab-state"


async def test_export_writes_the_file_asked_for(
    client: AgentServerClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id, readonly=True)  # export only reads
    target = tmp_path / "out.json"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("x")
        await screen_shown(pilot, PathScreen, workers=False)
        field = app.screen.query_one(Input)
        assert field.value == f"./thread-{thread.thread_id}.json"
        field.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, target.exists, what="the export file")
        data = load_export(target.read_text(encoding="utf-8"))
        assert data["source"]["thread_id"] == thread.thread_id
        assert [c["step"] for c in data["checkpoints"]] == [-1, 0, 1, 2]
        await toast_saying(pilot, "Exported 4 checkpoints")


async def test_import_makes_a_new_thread_and_opens_it(
    client: AgentServerClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    from agent_tui.threads.export import export_thread

    thread = await counter_thread(client, 5)
    source = tmp_path / "export.json"
    source.write_text(json.dumps(await export_thread(client, thread.thread_id)), encoding="utf-8")
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("i")
        await screen_shown(pilot, PathScreen, workers=False)
        app.screen.query_one(Input).value = str(source)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ThreadViewScreen)
                and app.screen is not screen
                and loaded(app.screen)
            ),
            what="the imported thread",
        )
        imported = app.screen
        assert isinstance(imported, ThreadViewScreen)
        assert imported.thread_id != thread.thread_id
        assert [row.step for row in imported.history.rows] == [2, 1, 0, -1]
        assert imported.history.rows[0].state.values == {"n": 12, "items": [5]}


async def test_read_only_refuses_fork_and_replay(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread = await counter_thread(client, 5)

    async def no_edit(app: Any, text: str, *, title: str = "") -> str:
        raise AssertionError("the editor must not open in read-only mode")

    monkeypatch.setattr(editor, "edit_text", no_edit)
    app, screen = view_app(client, thread.thread_id, readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("f", "p", "i")
        await pilot.press("r")
        said = await toasts_shown(pilot, 3)
        assert "Refused\nRead-only mode: cannot fork a thread (started with --readonly)" in said
        assert (
            "Refused\nRead-only mode: cannot replay from a checkpoint (started with --readonly)"
            in said
        )
        assert "Refused\nRead-only mode: cannot import a thread (started with --readonly)" in said
        assert len(screen.history.rows) == 4
        assert len(await client.threads.get_history(thread.thread_id, limit=10)) == 4


async def test_a_poll_that_finds_a_change_keeps_the_row_selected_meanwhile(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The poll reads the thread, then loads the new checkpoints; a row selected while it
    loads (a fork selecting its branch, the user moving) stays selected. It once went
    back to the row selected before the load: a fork made during a poll lost its branch."""
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id, status_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        browser, history = screen.browser, screen.browser.sync.history
        entered, release = asyncio.Event(), asyncio.Event()
        load_newer = history.load_newer

        async def held_load_newer() -> Any:
            entered.set()
            await release.wait()
            return await load_newer()

        monkeypatch.setattr(history, "load_newer", held_load_newer)
        newest = screen.selected_row
        assert newest is not None
        # A change elsewhere: the poll will find it and load the new checkpoint.
        await client.threads.update_state(thread.thread_id, {"n": 7}, as_node="dbl")
        browser.poll()
        await wait_for(pilot, entered.is_set, workers=False, what="the poll's load")
        older = history.rows[1].checkpoint_id
        assert screen.pane.move_to(older)  # selected while the poll loads
        await pilot.pause()
        release.set()
        await wait_for(pilot, lambda: len(history.rows) > 4, what="the new checkpoint")
        selected = screen.selected_row
        assert selected is not None and selected.checkpoint_id == older
