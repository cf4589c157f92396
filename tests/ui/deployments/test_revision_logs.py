"""A revision's log on the Deployments screen: follow (new lines come while the revision
builds, with no key pressed), and the filters (build or deploy log, level, query text),
against the shared local control plane (`tests/support/deployments.py`)."""

from __future__ import annotations

from functools import partial

import pytest
from textual.pilot import Pilot

from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.deployments.revision_logs import RevisionLogsScreen
from tests.support import deployments as deployments_support
from tests.support.deployments import (
    SECRET_NAME,
    SECRET_VALUE,
    SIZE,
    SharedPlane,
    control_plane_app,
    hold_builds,
    open_alpha,
    wait_terminal,
)
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(180)


plane = deployments_support.keyed_plane  # the fixture


async def open_newest_log(
    app: AgentTuiApp, pilot: Pilot[None], plane: SharedPlane, wait_for: WaitFor
) -> RevisionLogsScreen:
    await open_alpha(app, pilot, plane, wait_for)
    await pilot.press("l")  # the newest revision's log (it follows: a worker that goes on)
    await wait_for(
        pilot, lambda: isinstance(app.screen, RevisionLogsScreen), what="log", workers=False
    )
    logs = app.screen
    assert isinstance(logs, RevisionLogsScreen)
    return logs


def shown_lines(logs: RevisionLogsScreen) -> list[str]:
    return logs.text.splitlines()[1:]


def footer_keys(app: AgentTuiApp) -> dict[str, str]:
    return {
        b.binding.key: b.binding.description for b in app.active_bindings.values() if b.binding.show
    }


async def test_the_log_follows_a_building_revision_and_filters_by_type_level_and_text(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = hold_builds(monkeypatch)  # the revision is building when its log opens
    with plane.http() as http:  # new secrets: a new revision
        response = http.patch(
            f"/v2/deployments/{plane.alpha['id']}",
            json={"secrets": [{"name": SECRET_NAME, "value": SECRET_VALUE}]},
        )
        assert response.status_code == 200, response.text
    newest = response.json()["latest_revision_id"]
    app = control_plane_app(agent_server_url, plane.url)
    seen = partial(wait_for, workers=False)  # the log's follower never completes
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            logs = await open_newest_log(app, pilot, plane, wait_for)
            assert logs.revision_id == newest
            await seen(pilot, lambda: "building " in logs.text, what="the first lines")
            assert "● following" in logs.text and "build log" in logs.text
            assert "agent server ready at" not in logs.text
            keys = footer_keys(app)
            assert keys["f"] == "Follow on/off" and keys["t"] == "Build/deploy"
            assert keys["L"] == "Level" and keys["slash"] == "Query"

            # New lines come as the build goes on: no key pressed.
            release.set()
            await seen(
                pilot,
                lambda: "agent server ready at" in logs.text,
                what="the lines written later",
                timeout=90,
            )
            await seen(pilot, lambda: "status DEPLOYED" in logs.text, what="DEPLOYED")
            assert logs.text.count("agent server ready at") == 1  # each line once

            await pilot.press("f")
            await seen(pilot, lambda: "○ paused" in logs.text, what="follow off")

            # The query: only the lines with the text (any case).
            await pilot.press("slash")
            await pilot.press(*"READY", "enter")
            await seen(pilot, lambda: "query 'READY'" in logs.text, what="query shown")
            await seen(pilot, lambda: bool(shown_lines(logs)) and "(no" not in logs.text)
            assert all("ready" in line.lower() for line in shown_lines(logs))

            # The level: ERROR leaves no line of a build that went well.
            for _ in range(4):  # all → DEBUG → INFO → WARNING → ERROR
                await pilot.press("L")
            await seen(pilot, lambda: "level ERROR" in logs.text, what="level shown")
            await seen(pilot, lambda: shown_lines(logs) == ["(no lines)"], what="no lines")
            await pilot.press("L", "L")  # → CRITICAL → all again
            await seen(pilot, lambda: "level all" in logs.text)

            # The deploy log: the agent server's own lines, the same query applied.
            await pilot.press("slash", "ctrl+u", *"uvicorn running", "enter")
            await pilot.press("t")
            await seen(pilot, lambda: "deploy log" in logs.text, what="deploy log")
            await seen(
                pilot,
                lambda: any("Uvicorn running" in line for line in shown_lines(logs)),
                what="the server's line",
            )
            assert all("uvicorn running" in line.lower() for line in shown_lines(logs))
            assert SECRET_VALUE not in logs.text
    finally:
        release.set()
        with plane.http() as http:  # alpha deployed again for the tests that follow
            wait_terminal(http, plane.alpha["id"], newest)
