"""Contexts in the app: the picker, `:ctx`, and a read-only context refusing changes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import DataTable

from agent_tui.settings.config import load_config
from agent_tui.settings.contexts import resolve_context
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.context_picker import ContextPickerScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.projects import tiny_config
from tests.support.screen import toast_saying, toasts, toasts_shown
from tests.support.waiting import WaitFor

SIZE = (140, 40)
SECRET = "lsv2_pt_contexttestsecret0123"


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_server_url: str) -> Path:
    """Three contexts on the session server: one keyed from the environment, one
    read-only, one whose key variable is not set."""
    path = tmp_path / "config.toml"
    path.write_text(
        f"""\
current_context = "session"

[contexts.session]
agent_server_url = "{agent_server_url}"
api_key_env = "CTX_TEST_KEY"
workspace_id = "ws-test"

[contexts.session.headers]
X-Team = "{{env:CTX_TEST_KEY}}"

[contexts.ro]
agent_server_url = "{agent_server_url}"
readonly = true

[contexts.nokey]
agent_server_url = "{agent_server_url}"
api_key_env = "CTX_TEST_UNSET"
"""
    )
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(path))
    monkeypatch.setenv("CTX_TEST_KEY", SECRET)
    monkeypatch.delenv("CTX_TEST_UNSET", raising=False)
    monkeypatch.delenv("AGENT_TUI_READONLY", raising=False)
    monkeypatch.delenv("AGENT_TUI_CONTEXT", raising=False)
    return path


def palette_offers(app: App[Any], name: str) -> bool:
    from textual.command import CommandList

    lists = app.screen.query(CommandList)
    return any(
        str(options.get_option_at_index(i).prompt).startswith(name)
        for options in lists
        for i in range(options.option_count)
    )


def cell_text(table: DataTable[object], row: int) -> list[str]:
    return [str(getattr(cell, "plain", cell)) for cell in table.get_row_at(row)]


async def connected_to(
    app: AgentTuiApp, name: str, pilot: object, wait_for: WaitFor, timeout: float = 30
) -> None:
    """Until the app shows the info screen of context `name`.

    Polls with plain sleeps, bounded by `timeout`: a switch removes the old screens, and
    `Pilot.pause` (which waits for the current screen) or `wait_for_complete` (which
    raises for their cancelled workers) would trip over them.
    """
    deadline = time.monotonic() + timeout
    while not (
        app.context.name == name
        and app.client is not None
        and isinstance(app.screen, ServerInfoScreen)
        and app.screen.is_mounted
        and app.connection_status.startswith("connected")
    ):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for context {name}")
        await asyncio.sleep(0.05)


async def test_picker_lists_contexts_without_keys_and_switches(
    config_file: Path, agent_server_url: str, wait_for: WaitFor
) -> None:
    config = load_config()
    app = AgentTuiApp(resolve_context(config), config=config)
    async with app.run_test(size=SIZE) as pilot:
        await connected_to(app, "session", pilot, wait_for)
        assert app.selection.context == "session"
        assert app.client is not None
        assert app.client.transport.credentials.tenant_id == "ws-test"

        app.action_pick_context()
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ContextPickerScreen)
                and any(t.row_count for t in app.screen.query(DataTable))
            ),
            what="the context picker",
        )
        table = app.screen.query_one(DataTable)
        rows = [cell_text(table, i) for i in range(table.row_count)]
        assert rows == [
            [" ", "local", "embedded (started by agent-tui)", "none", "", "", ""],
            [
                "●",
                "session",
                agent_server_url,
                "env CTX_TEST_KEY",
                "ws-test",
                "",
                "X-Team (env CTX_TEST_KEY)",  # its source, never its value
            ],
            [" ", "ro", agent_server_url, "none", "", "read-only", ""],
            [" ", "nokey", agent_server_url, "env CTX_TEST_UNSET (not set)", "", "", ""],
        ]
        assert table.cursor_row == 1  # on the current context
        assert SECRET not in app.export_screenshot()

        await pilot.press("down", "enter")
        await connected_to(app, "ro", pilot, wait_for)
        assert app.readonly
        assert app.readonly_reason == "the context 'ro' is read-only"
        assert app.selection.context == "ro"
        assert SECRET not in app.export_screenshot()
        await pilot.press("ctrl+q")


async def test_ctx_command_switches_and_a_read_only_context_refuses_changes(
    config_file: Path, agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await connected_to(app, agent_server_url, pilot, wait_for)
        assert not app.readonly

        assert await app.run_command("ctx ro")
        await connected_to(app, "ro", pilot, wait_for)
        assert app.config is not None and app.config.context_names()[-1] == "nokey"

        # A real mutation: `n` on the threads screen is refused, saying why.
        opened = await app.run_command("threads")
        await pilot.pause()
        assert opened, toasts(app)
        await pilot.pause()
        await pilot.press("n")
        await toast_saying(
            pilot, "Read-only mode: cannot create a thread (the context 'ro' is read-only)"
        )
        # The breadcrumb of the resource screen names the context.
        assert "ctx ro" in str(app.screen.query_one("Breadcrumb").render())

        # Back to a writable context: no longer read-only.
        assert await app.run_command("ctx session")
        await connected_to(app, "session", pilot, wait_for)
        assert not app.readonly
        await pilot.press("ctrl+q")


async def test_the_readonly_flag_outlives_a_switch(
    config_file: Path, agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await connected_to(app, agent_server_url, pilot, wait_for)
        assert app.switch_context("session")
        await connected_to(app, "session", pilot, wait_for)
        assert app.readonly and app.readonly_reason == "started with --readonly"
        assert app.refuse_if_readonly("delete a thread")
        await toast_saying(
            pilot, "Read-only mode: cannot delete a thread (started with --readonly)"
        )
        await pilot.press("ctrl+q")


async def test_an_unusable_context_says_why_and_keeps_the_current_one(
    config_file: Path, agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await connected_to(app, agent_server_url, pilot, wait_for)
        screen = app.screen
        assert not app.switch_context("nokey")
        assert not app.switch_context("missing")
        assert await toasts_shown(pilot, 2) == [
            "Cannot switch context\n"
            "the context 'nokey' takes its API key from the environment variable "
            "CTX_TEST_UNSET, which is not set",
            "Cannot switch context\nno context named 'missing' (known: local, session, ro, nokey)",
        ]
        assert app.screen is screen and app.context.name == agent_server_url

        await asyncio.to_thread(config_file.write_text, "[contexts.x]\nreadonly = 'yes'\n")
        assert not app.switch_context("x")
        assert (await toasts_shown(pilot, 3))[-1] == (
            "Cannot switch context\n"
            f"{config_file}: contexts.x.agent_server_url: is required\n"
            f'{config_file}: contexts.x.readonly: expected true or false, got "yes"'
        )
        await pilot.press("ctrl+q")


async def test_switching_back_to_local_reuses_the_embedded_server(
    config_file: Path, tmp_path: Path, wait_for: WaitFor
) -> None:
    from agent_tui.settings.target import LocalServer

    project = tiny_config(tmp_path)
    app = AgentTuiApp(LocalServer(config_path=project, data_dir=tmp_path / "data"))
    async with app.run_test(size=SIZE) as pilot:
        await connected_to(app, "local", pilot, wait_for, timeout=90)
        server = app.local_server
        assert server is not None and server.is_running
        pid, local_client = server.pid, app.client

        assert app.switch_context("session")
        await connected_to(app, "session", pilot, wait_for)
        assert server.is_running  # kept for the way back

        assert app.switch_context("local")
        await connected_to(app, "local", pilot, wait_for)
        assert app.local_server is server and server.pid == pid
        assert app.client is local_client  # one client per URL and credentials
        await pilot.press("ctrl+q")
    assert not server.is_running


async def test_a_context_that_cannot_connect_names_itself(
    config_file: Path, free_port: int, wait_for: WaitFor
) -> None:
    from agent_tui.tui.screens.startup import StartupScreen

    text = (await asyncio.to_thread(config_file.read_text)).replace('"session"', '"dead"', 1)
    text += f'\n[contexts.dead]\nagent_server_url = "http://127.0.0.1:{free_port}"\n'
    await asyncio.to_thread(config_file.write_text, text)
    config = load_config()
    app = AgentTuiApp(resolve_context(config), config=config)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, StartupScreen)
        await wait_for(pilot, lambda: screen.failed, what="the failure")
        title = str(screen.query_one("#error-title").render())
        assert title == f"Could not connect to http://127.0.0.1:{free_port} (context dead)"
        # Another context is one command away, from the failure screen too.
        assert await app.run_command("ctx ro")
        await connected_to(app, "ro", pilot, wait_for)
        await pilot.press("ctrl+q")
    assert app.return_code == 0


def test_context_picker_snapshot(snap_compare: Callable[..., bool]) -> None:
    from agent_tui.settings.contexts import ContextSummary

    rows = [
        ContextSummary("local", None, None, "none", True, None, False),
        ContextSummary(
            "staging", "https://staging.example.com", None, "env STAGING_KEY", True, "ws-1", True,
            current=True, headers=("Authorization (env STAGING_TOKEN)",),
        ),
        ContextSummary("dev", "http://127.0.0.1:2024", None, "stored (missing)", False, None, False),
    ]  # fmt: skip

    class Harness(App[None]):
        def on_mount(self) -> None:
            self.push_screen(
                ContextPickerScreen(rows, Path("/home/me/.config/agent-tui/config.toml"))
            )

    assert snap_compare(Harness(), terminal_size=(110, 16))


async def test_the_palette_opens_the_context_picker(
    config_file: Path, agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=SIZE) as pilot:
        await connected_to(app, agent_server_url, pilot, wait_for)
        await pilot.press("ctrl+p")
        await pilot.press(*"Contexts")
        await wait_for(pilot, lambda: palette_offers(app, "Contexts"), what="the palette hit")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ContextPickerScreen)
                and any(t.row_count for t in app.screen.query(DataTable))
            ),
            what="the context picker",
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="back")
        assert app.context.name == agent_server_url  # cancelled: nothing changed
        await pilot.press("ctrl+q")
