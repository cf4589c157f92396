""" "Deploy this folder…" on the Deployments screen (issue 23): the palette command packs
the folder agent-tui runs in as `agent-tui deploy` does, asks first, then follows the new
revision; against a real local control plane (the deploy really happens)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette

from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from tests.support import deployments as deployments_support
from tests.support.deployments import SIZE, SharedPlane, control_plane_app
from tests.support.projects import copy_weather_project
from tests.support.screen import screen_text, toast_saying
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(240)


plane = deployments_support.keyed_plane  # the fixture


async def run_palette_command(app: object, pilot: object, wait_for: WaitFor, title: str) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await pilot.press("ctrl+p")
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*title.lower())
    found = pilot.app.screen.query_one(CommandList)

    def prompts() -> list[str]:
        return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]

    await wait_for(pilot, lambda: any(title in p for p in prompts()), workers=False)
    found.highlighted = next(i for i, p in enumerate(prompts()) if title in p)
    await pilot.press("enter")


async def test_deploy_this_folder_asks_then_follows_the_new_revision_to_deployed(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = copy_weather_project(tmp_path).parent
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / ".venv" / "lib" / "big.py").write_text("x = 1\n")
    monkeypatch.chdir(project)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="list")
        await run_palette_command(app, pilot, wait_for, "Deploy this folder…")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        question = app.screen.question if isinstance(app.screen, ConfirmScreen) else ""
        assert question.startswith(f"Deploy {project} as weather?")
        await pilot.press("y")
        await toast_saying(pilot, "Packing and uploading weather")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RevisionProgressScreen), what="the progress"
        )
        progress = app.screen
        assert isinstance(progress, RevisionProgressScreen)
        await wait_for(pilot, lambda: progress.url is not None, what="DEPLOYED", timeout=180)
        await pilot.pause()
        assert "✓ DEPLOYED after" in screen_text(app)

    source = (
        plane.plane.data_dir
        / "deployments"
        / progress.deployment_id
        / "revisions"
        / progress.revision_id
        / "source"
    )
    assert (source / "agent.py").is_file()
    assert not (source / ".venv").exists()


async def test_deploy_this_folder_names_the_sibling_package_langgraph_json_packs(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.support.projects import sibling_package_project

    config = sibling_package_project(tmp_path / "repo")
    monkeypatch.chdir(config.parent)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="list")
        await run_palette_command(app, pilot, wait_for, "Deploy this folder…")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        question = app.screen.question if isinstance(app.screen, ConfirmScreen) else ""
        assert question.startswith(f"Deploy {config.parent} as app?")
        assert "With what its langgraph.json names beside it: ../common." in question
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="back")
