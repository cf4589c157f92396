"""The revision progress screen, following real revisions of a real local control plane."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.client import ControlPlaneClient, RetryPolicy
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.revision_progress import (
    RevisionProgressScreen,
    failure_reason,
    render_steps,
)
from agent_tui.tui.widgets.breadcrumb import SEPARATOR as SEP
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from tests.support import deployment_forms as support
from tests.support.deployment_forms import POLL, SIZE, FormsApp, screen_of, type_into
from tests.support.deployments import hold_builds
from tests.support.paths import GRAPHS_CONFIG
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

control_plane = support.control_plane  # fixtures: one local control plane for this module
cp_client = support.cp_client


async def test_a_new_deployment_is_followed_to_deployed_and_opens_its_assistants(
    cp_client: ControlPlaneClient,
    control_plane: LocalControlPlane,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Held in its build until the screen was left: the first screen is seen following a
    # revision that is not finished, however fast or slow the machine.
    release = hold_builds(monkeypatch)
    app = FormsApp(cp_client, control_plane)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form(cwd=GRAPHS_CONFIG.parent)  # the default ./langgraph.json is there
        form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        assert f"→ {GRAPHS_CONFIG} ✓" in screen_text(app)  # the default path, resolved
        await type_into(pilot, "#name", "progress-demo")
        await pilot.press("ctrl+s")
        first = await screen_of(pilot, wait_for, RevisionProgressScreen, "the progress")
        assert form not in app.screen_stack
        created = app.results[-1]
        assert created is not None and created.name == "progress-demo"
        assert created.latest_revision_id is not None
        assert first.revision_id == created.latest_revision_id

        # Leaving stops the polling (the screen's workers end)…
        await wait_for(pilot, lambda: bool(first.seen), what="a first status", workers=False)
        assert not first.finished
        # The header says whose revision this is, as the deployment's detail does.
        await wait_for(pilot, lambda: first.deployment_name is not None, workers=False)
        trail = first.query_one(Breadcrumb).trail_text().plain
        assert f"deployment progress-demo{SEP}revision {created.latest_revision_id[:8]}" in trail
        # Already following: no "Follow again" to confuse.
        assert "Follow again" not in screen_text(app)
        assert any(w.node is first and w.is_running for w in app.workers)
        await pilot.press("escape")
        await pilot.pause()
        assert first not in app.screen_stack
        assert not any(w.node is first and w.is_running for w in app.workers)
        release.set()

        # …but not the deploy: following it again sees it through to DEPLOYED.
        progress = RevisionProgressScreen(
            cp_client, created.id, created.latest_revision_id, interval=POLL
        )
        await app.push_screen(progress)
        await wait_for(pilot, lambda: progress.url is not None, what="DEPLOYED", timeout=90)
        await pilot.pause()
        text = screen_text(app)
        for step in ("QUEUED", "AWAITING_BUILD", "BUILDING", "DEPLOYING", "DEPLOYED"):
            assert step in text
        assert "✓ DEPLOYED after" in text
        assert f"Deployment progress-demo · revision {progress.revision_id}" in text
        assert progress.url is not None and progress.url in text
        assert "o opens its assistants" in text
        assert progress.seen[-1][0] == "DEPLOYED"
        await wait_for(pilot, lambda: "queued" in "\n".join(progress.log_lines), what="logs")

        await pilot.press("o")
        assert app.opened == [
            {
                "name": "progress-demo",
                "url": progress.url,
                "api_key": None,  # the local control plane's key stays with it
                "deployment": "progress-demo",
                "then": "assistants",
                # A server agent-tui started: let past a project's own auth.
                "headers": {"x-auth-scheme": "langsmith"},
            }
        ]
        await pilot.press("escape")
        assert not isinstance(app.screen, RevisionProgressScreen)


async def test_a_broken_config_ends_in_build_failed_with_the_reason_on_screen(
    cp_client: ControlPlaneClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    broken = tmp_path / "langgraph.json"
    broken.write_text(json.dumps({"graphs": {"agent": "./missing.py:graph"}}))
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form(cwd=tmp_path)
        await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        await type_into(pilot, "#name", "broken")
        await pilot.press("ctrl+s")
        progress = await screen_of(pilot, wait_for, RevisionProgressScreen, "the progress")
        await wait_for(
            pilot,
            lambda: "BUILD_FAILED:" in screen_text(app),
            what="the failure and its reason",
            timeout=60,
        )
        text = screen_text(app)
        assert "✗ BUILD_FAILED after" in text
        assert "BUILD_FAILED: graph agent: cannot import" in text  # the reason, from the logs
        assert "missing.py" in text
        assert "Follow again" not in text  # nothing left to follow
        assert any("missing.py" in line for line in progress.log_lines)
        assert "DEPLOYED" in text and "✓ DEPLOYED" not in text  # a step never reached
        assert not progress.check_action("open_server", ())


def test_steps_show_passed_current_and_failed() -> None:
    passed = render_steps([("QUEUED", 0.0), ("BUILDING", 1.0)], now=3.5, spinner="*").plain
    assert "✓  QUEUED  1.0 s" in passed
    assert "✓  AWAITING_BUILD" in passed  # shorter than a poll: passed, no time
    assert "*  BUILDING  2.5 s" in passed
    assert "·  DEPLOYING" in passed
    failed = render_steps([("BUILDING", 0.0), ("BUILD_FAILED", 2.0)], now=9.0).plain
    assert "✗  BUILDING  2.0 s" in failed
    assert failed.endswith("✗  BUILD_FAILED")


async def test_follow_again_is_offered_once_following_stopped(wait_for: WaitFor) -> None:
    url = f"http://127.0.0.1:{support.unused_port()}"  # nothing listens: following fails
    async with ControlPlaneClient(url, retry=RetryPolicy(attempts=1)) as nowhere:
        app = FormsApp(nowhere)
        async with app.run_test(size=SIZE) as pilot:
            progress = RevisionProgressScreen(nowhere, "d-1", "r-1", interval=POLL)
            await app.push_screen(progress)
            await wait_for(pilot, lambda: "r follows again" in screen_text(app), what="the error")
            await pilot.pause()
            assert "r Follow again" in screen_text(app)  # the footer offers it now


def test_a_failure_seen_at_the_first_poll_still_shows_the_steps_it_passed() -> None:
    steps = render_steps([("BUILD_FAILED", 0.0)], now=1.0).plain
    assert "✓  QUEUED" in steps and "✓  AWAITING_BUILD" in steps
    assert "✗  BUILDING" in steps
    assert "·  DEPLOYING" in steps and steps.endswith("✗  BUILD_FAILED")
    deploy = render_steps([("QUEUED", 0.0), ("DEPLOY_FAILED", 1.0)], now=2.0).plain
    assert "✓  BUILDING" in deploy and "✗  DEPLOYING" in deploy


def test_the_failure_reason_is_the_line_that_says_why() -> None:
    deploy = ["queued", "graph agent: ok", "deploy failed: /ok never answered", "Traceback"]
    assert failure_reason(deploy) == "deploy failed: /ok never answered"
    build = ["building", "graph a: cannot import x.py:graph: ImportError", "build failed (exit 1)"]
    assert failure_reason(build) == "graph a: cannot import x.py:graph: ImportError"
    assert failure_reason(["one", "", "two", "three"]) == "two · three"
