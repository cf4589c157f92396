"""The deployment detail: revisions live, logs, diff, opening the server, redeploy.

One patch and one redeploy of the shared `alpha` deployment (real deploys): the tests
run in file order and each leaves `alpha` deployed.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from rich.text import Text
from textual.screen import Screen

from agent_tui.client.models.control_plane import Revision
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.deployments.revision_diff import RevisionDiffScreen
from agent_tui.tui.screens.deployments.revision_logs import RevisionLogsScreen
from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen
from agent_tui.tui.widgets.breadcrumb import SEPARATOR as SEP
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from tests.support import deployments as deployments_support
from tests.support.deployments import (
    SECRET_NAME,
    SECRET_VALUE,
    SIZE,
    SharedPlane,
    cell_texts,
    control_plane_app,
    heading,
    hold_builds,
    open_alpha,
    select_alpha,
)
from tests.support.screen import toast_saying, toasts
from tests.support.waiting import WaitFor, screen_shown

pytestmark = pytest.mark.timeout(120)
EXTRA_NAME = "EXTRA_TOKEN"
EXTRA_VALUE = "extra-secret-value-51ab"
NOT_TERMINAL = {"CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"}


plane = deployments_support.keyed_plane  # the fixture


def serving_url(plane: SharedPlane) -> str:
    """alpha's URL once it serves again (a previous test's new revision may still be
    replacing its server)."""
    deadline = time.monotonic() + 60
    with plane.http() as http:
        while True:
            deployment = http.get(f"/v2/deployments/{plane.alpha['id']}").json()
            url = deployment["source_config"]["custom_url"]
            if deployment["status"] == "READY" and url:
                return str(url)
            assert time.monotonic() < deadline, f"alpha still {deployment['status']}"
            time.sleep(0.2)


def statuses(detail: DeploymentDetailScreen) -> list[str]:
    return [r.status for r in detail.table.items]


def screen_text(screen: Screen[Any]) -> str:
    return "\n".join(str(w.render()) for w in screen.query("Static"))


async def test_a_new_revision_turns_deployed_live_and_the_diff_shows_names_only(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The build waits until the detail has shown the revision building: on a loaded
    # machine it could otherwise be DEPLOYED before the app draws its first row.
    release = hold_builds(monkeypatch)
    with plane.http() as http:  # a patch with another secret: a new revision
        response = http.patch(
            f"/v2/deployments/{plane.alpha['id']}",
            json={
                "secrets": [
                    {"name": SECRET_NAME, "value": SECRET_VALUE},
                    {"name": EXTRA_NAME, "value": EXTRA_VALUE},
                ]
            },
        )
        assert response.status_code == 200, response.text
    newest = response.json()["latest_revision_id"]
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        detail = await open_alpha(app, pilot, plane, wait_for)
        assert any(f"deployment alpha{SEP}revisions" in b.plain for b in _trails(app))
        # The old server serves while the new revision builds.
        assert "alpha" in heading(detail) and "READY" in heading(detail)
        ids = [r.id for r in detail.table.items]
        assert ids[0] == newest and len(ids) == 2  # newest first
        assert statuses(detail)[0] in NOT_TERMINAL  # still building when first shown

        release.set()
        await wait_for(
            pilot, lambda: statuses(detail)[0] == "DEPLOYED", what="DEPLOYED live", timeout=60
        )
        # The new revision's server starts (10-30 s on a loaded machine) before READY.
        await wait_for(pilot, lambda: "READY" in heading(detail), what="READY again", timeout=60)
        await wait_for(pilot, lambda: cell_texts(detail)[1][2] == "replaced", what="replaced")
        assert cell_texts(detail)[0][2] == "active"
        assert f"active {newest[:8]}" in heading(detail)

        # enter: the revision's log.
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevisionLogsScreen), what="log")
        logs = app.screen
        assert isinstance(logs, RevisionLogsScreen)
        await wait_for(pilot, lambda: "status DEPLOYED" in logs.text, what="log lines")
        assert "queued" in logs.text
        await pilot.press("escape")

        # l opens it too, and the footer says so (the table's enter does not show there).
        await wait_for(pilot, lambda: app.screen is detail)
        shown = {b.binding.description for b in app.active_bindings.values() if b.binding.show}
        assert "Log" in shown
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, RevisionLogsScreen), what="log (l)")
        await pilot.press("escape")

        # d: the selected (newest) revision against the one before: names, never values.
        await wait_for(pilot, lambda: app.screen is detail)
        detail.table.move_to(newest)
        await pilot.press("d")
        await screen_shown(pilot, RevisionDiffScreen, what="diff")
        diff_screen = app.screen
        assert isinstance(diff_screen, RevisionDiffScreen)
        text = screen_text(diff_screen)
        assert f"b: revision {newest[:8]}" in text
        assert SECRET_NAME in text and EXTRA_NAME in text and "values not shown" in text
        assert SECRET_VALUE not in text and EXTRA_VALUE not in text
        await pilot.press("escape")

        # y on a revision: its JSON, no secret value either.
        await pilot.press("y")
        await screen_shown(pilot, RawJsonScreen, what="JSON")
        assert EXTRA_VALUE not in app.screen.query_one("#raw-json").text  # type: ignore[attr-defined]
        assert not any(EXTRA_VALUE in said or SECRET_VALUE in said for said in toasts(app))


async def test_o_opens_the_deployments_agent_server_on_its_assistants(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor
) -> None:
    url = serving_url(plane)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE) as pilot:
        await open_alpha(app, pilot, plane, wait_for)
        await pilot.press("o")
        await wait_for(
            pilot, lambda: isinstance(app.screen, AssistantsScreen), what="assistants", timeout=30
        )
        assistants = app.screen
        assert isinstance(assistants, AssistantsScreen)
        await wait_for(pilot, lambda: assistants.table.row_count > 0, what="assistant rows")
        graphs = {a.graph_id for a in assistants.table.items}
        assert {"chat", "counter", "ticker", "loop", "nested"} <= graphs
        assert app.client is not None and app.client.base_url == url
        trail = assistants.query_one(Breadcrumb).trail_text().plain
        assert f"ctx ui-tests{SEP}deployment alpha{SEP}assistants" in trail
        assert app.sub_title == f"connected · {url}"

        # Deleting it now would cut this app off: the confirmation says so.
        assert await app.run_command(":deployments")
        await select_alpha(app, pilot, plane, wait_for)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        assert "connected to that server now" in asked(app)
        await pilot.press("n")


async def test_redeploying_an_older_revision_asks_then_the_list_follows_it(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(DeploymentsScreen, "AUTO_REFRESH", 0.5)  # the list's own refresh
    release = hold_builds(monkeypatch)  # still building when the list first shows it
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        detail = await open_alpha(app, pilot, plane, wait_for)
        before = [r.id for r in detail.table.items]
        await pilot.press("p")  # on the active revision: nothing to do
        await toast_saying(pilot, "active one already")

        detail.table.move_to(before[-1])  # the oldest: a rollback
        active = detail.deployment.active_revision_id
        assert active is not None and active != before[-1]
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        # The confirmation names both: the revision serving now and the one deployed again.
        question = asked(app)
        assert (
            f"Roll back alpha from revision {active[:8]} (active) to revision {before[-1][:8]}?"
            in question
        )
        await pilot.press("y")
        await wait_for(
            pilot, lambda: detail.deployment.latest_revision_id not in before, what="new revision"
        )
        newest = detail.deployment.latest_revision_id
        assert newest is not None
        # The progress view follows it (helper F's screen; closed here without its keys).
        await wait_for(pilot, lambda: isinstance(app.screen, RevisionProgressScreen))
        await app.pop_screen()
        await wait_for(pilot, lambda: app.screen is detail, what="back on the detail")
        assert detail.table.items[0].id == newest

        # Back on the list: the new revision is still on its way, and the list refreshes
        # itself until it is deployed.
        await pilot.press("escape")
        await screen_shown(pilot, DeploymentsScreen, what="list")
        listing = app.screen
        assert isinstance(listing, DeploymentsScreen)

        def alpha_latest() -> Revision | None:
            row = listing.table.get_item(plane.alpha["id"])
            return row.latest if row is not None else None

        await wait_for(pilot, lambda: getattr(alpha_latest(), "id", None) == newest)
        assert getattr(alpha_latest(), "status", None) in NOT_TERMINAL
        release.set()
        await wait_for(
            pilot,
            lambda: getattr(alpha_latest(), "status", None) == "DEPLOYED",
            what="DEPLOYED in the list",
            timeout=60,
        )


def _trails(app: AgentTuiApp) -> list[Text]:
    return [b.trail_text() for b in app.screen.query(Breadcrumb)]


def asked(app: Any) -> str:
    """The question of the confirmation on screen."""
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    return screen.question
