"""A copy of agent-tui attached to a project's server that `agent-tui serve` owns shows that
server's live reloads as the owner does: a failed one in the header (file and line) and in
a notification, also when the copy opens after it failed; a fix puts the header back."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.settings.target import LocalServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support.projects import broken_project
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor, screen_shown

MISSING = "tools.py:1: ModuleNotFoundError: No module named 'not_installed_anywhere' (graph agent)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    config = broken_project(tmp_path / "project")
    (config.parent / "tools.py").write_text("STEP = 1\n")
    return config


@pytest.fixture
def serve(project: Path) -> Iterator[subprocess.Popen[str]]:
    """`agent-tui serve` on the project, in the tests' user folders (as the app's)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "serve"],
        cwd=project.parent,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


async def test_an_attached_copy_shows_the_owners_reloads(
    project: Path, serve: subprocess.Popen[str], wait_for: WaitFor
) -> None:
    assert serve.stdout is not None
    url = (await asyncio.to_thread(serve.stdout.readline)).strip()
    assert url.startswith("http://"), "serve printed no URL"
    owner = f"process {serve.pid}"
    tools = project.parent / "tools.py"

    app = AgentTuiApp(LocalServer(config_path=project))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await screen_shown(pilot, ServerInfoScreen, timeout=60, what="home")
        summary = str(app.screen.query_one("#summary", Static).render())
        assert f"belongs to {owner}" in summary
        assert f"on: {owner} reloads the server on an edit" in summary
        assert app.sub_title == f"connected · {url}"

        tools.write_text("import not_installed_anywhere\n")
        failed = f"reload failed (tools.py:1) · {url}"
        await wait_for(pilot, lambda: app.sub_title == failed, timeout=90, what="the failed reload")
        note = await toast_saying(pilot, "Reload failed")
        assert f"previous code ({owner})" in note and MISSING in note
        assert app.local_server is None  # still the owner's server, untouched
        await pilot.press("ctrl+q")

    # A copy that opens while the owner's last reload is failed says so at once.
    late = AgentTuiApp(LocalServer(config_path=project))
    async with late.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_for(
            pilot, lambda: late.sub_title == failed, timeout=60, what="the failure on attach"
        )
        await toast_saying(pilot, MISSING)

        tools.write_text("STEP = 2\n")
        await wait_for(
            pilot,
            lambda: late.sub_title == f"connected · {url}",
            timeout=90,
            what="the recovery",
        )
        await toast_saying(pilot, "graphs refreshed")
        await pilot.press("ctrl+q")
    assert serve.poll() is None  # the owner's server keeps running
