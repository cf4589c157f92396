"""The Deployments screen against a real local control plane (deploys really happen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import TextArea

from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from tests.support.control_plane_process import serving_control_plane
from tests.support.deployments import (
    SECRET_NAME,
    SECRET_VALUE,
    SIZE,
    SharedPlane,
    cell_texts,
    control_plane_app,
    create_deployment,
    heading,
    names_shown,
    open_deployments,
    shared_plane,
    wait_terminal,
)
from tests.support.screen import toast_saying, toasts
from tests.support.waiting import WaitFor, screen_shown

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def plane(request: pytest.FixtureRequest) -> SharedPlane:
    return shared_plane(request)


@pytest.fixture
def plane_key(plane: SharedPlane, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app finds the control plane's key where users put it."""
    monkeypatch.setenv("AGENT_TUI_CONTROL_PLANE_KEY", plane.api_key)


def failed_deployment(plane: SharedPlane, name: str, tmp_path: Path) -> dict[str, Any]:
    """A deployment whose only revision failed to build (fast: its config is missing)."""
    with plane.http() as http:
        created = create_deployment(http, name, str(tmp_path / "missing" / "langgraph.json"))
        assert wait_terminal(http, created["id"], created["latest_revision_id"]) == "BUILD_FAILED"
    return created


@pytest.mark.usefixtures("plane_key")
async def test_table_shows_the_deployed_deployment_filters_and_masks_secrets(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor
) -> None:
    with plane.http() as http:  # as it is now (the detail tests make new revisions)
        alpha = http.get(f"/v2/deployments/{plane.alpha['id']}").json()
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_deployments(app, pilot, wait_for)
        assert f"control plane · {plane.url}" in heading(screen)
        row = next(r for r in cell_texts(screen) if r[0] == "alpha")
        assert row[1] == "READY" and row[2] == "DEPLOYED"
        assert row[3] == alpha["active_revision_id"][:8]
        assert row[4] == alpha["source_config"]["custom_url"]

        # y: the JSON names the secret and masks its value.
        screen.table.move_to(plane.alpha["id"])
        await pilot.press("y")
        await screen_shown(pilot, RawJsonScreen, what="raw JSON")
        raw = app.screen.query_one("#raw-json").text  # type: ignore[attr-defined]
        assert SECRET_NAME in raw and "••••" in raw and SECRET_VALUE not in raw
        await pilot.press("escape")

        # / filters what is loaded; enter asks the server for the names too.
        await pilot.press("slash", *"nomatch", "enter")
        await wait_for(pilot, lambda: screen.name_contains == "nomatch" and not names_shown(screen))
        assert "names containing 'nomatch'" in heading(screen)
        await pilot.press("slash", "escape")
        await wait_for(pilot, lambda: "alpha" in names_shown(screen), what="alpha again")
        assert screen.name_contains == ""

        # n: the new deployment form (esc leaves it without creating anything).
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentFormScreen), what="form")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the list")

        # `:deploy TEXT` opens the list with the names containing TEXT.
        assert await app.run_command(":deploy lph")
        found = app.screen
        assert isinstance(found, DeploymentsScreen) and found is not screen
        await wait_for(pilot, lambda: found.table.row_count > 0, what="filtered list")
        assert names_shown(found) == ["alpha"]
        assert SECRET_VALUE not in "".join(toasts(app))


@pytest.mark.usefixtures("plane_key")
async def test_delete_asks_first_and_the_deployment_is_gone(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor, tmp_path: Path
) -> None:
    doomed = failed_deployment(plane, "doomed", tmp_path)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_deployments(app, pilot, wait_for)
        row = next(r for r in cell_texts(screen) if r[0] == "doomed")
        assert row[2] == "BUILD_FAILED" and row[4] == "—"
        assert screen.table.move_to(doomed["id"])

        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        assert "agent server" not in asked(app)  # never deployed: none to stop
        await pilot.press("n")  # no: nothing happens
        await wait_for(pilot, lambda: app.screen is screen)
        assert "doomed" in names_shown(screen)

        # A deployed one: the question says its agent server stops too.
        screen.table.move_to(plane.alpha["id"])
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        url = plane.alpha["source_config"]["custom_url"]
        assert f"Its agent server stops ({url})" in asked(app)
        assert "connected to that server" not in asked(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.table.move_to(doomed["id"])

        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: "doomed" not in names_shown(screen), what="row gone")
        await toast_saying(pilot, "Deleted deployment doomed")
    with plane.http() as http:
        assert http.get(f"/v2/deployments/{doomed['id']}").status_code == 404


@pytest.mark.usefixtures("plane_key")
async def test_a_very_long_name_leaves_every_column_in_view(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor, tmp_path: Path
) -> None:
    long = failed_deployment(plane, "long-" + "n" * 251, tmp_path)  # the longest kept
    app = control_plane_app(agent_server_url, plane.url)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_deployments(app, pilot, wait_for)
            table = screen.table
            await wait_for(pilot, lambda: table.get_item(long["id"]) is not None, what="the row")
            name = table.get_row(long["id"])[0].plain
            assert name.startswith("long-nnn") and name.endswith("…")
            # The rows can come before the first layout gives the table its size.
            await wait_for(pilot, lambda: table.size.width > 0, what="the table laid out")
            widths = [column.get_render_width(table) for column in table.columns.values()]
            assert sum(widths) <= table.size.width  # status, revision, URL, updated in view
    finally:
        with plane.http() as http:
            http.delete(f"/v2/deployments/{long['id']}")


@pytest.mark.usefixtures("plane_key")
async def test_read_only_refuses_to_delete(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor
) -> None:
    app = control_plane_app(agent_server_url, plane.url, readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_deployments(app, pilot, wait_for)
        screen.table.move_to(plane.alpha["id"])
        # Each refusal is checked as soon as it is made: a toast is gone after 5 s, which
        # a loaded machine can spend on the next key presses.
        for key, verb in (("ctrl+d", "delete"), ("n", "create"), ("e", "edit")):
            await pilot.press(key)
            assert app.screen is screen
            await toast_saying(pilot, f"Read-only mode: cannot {verb} a deployment")


async def test_a_wrong_key_is_reported_naming_the_header(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_TUI_CONTROL_PLANE_KEY", "not-the-key")
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_deployments(app, pilot, wait_for, rows=False)
        await toast_saying(pilot, "Could not load the deployments")
        message = "\n".join(toasts(app))  # all it says, the key in none of it
        assert "Could not load the deployments" in message
        assert "X-Api-Key" in message
        assert "not-the-key" not in message and plane.api_key not in message
        assert screen.table.row_count == 0


async def test_without_a_control_plane_url_the_app_starts_the_local_one(
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))  # its data folder: a fresh one
    monkeypatch.delenv("AGENT_TUI_CONTROL_PLANE_KEY", raising=False)
    app = control_plane_app(agent_server_url, None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(app, pilot, wait_for, rows=False)
        await wait_for(pilot, lambda: "local control plane" in heading(screen), what="heading")
        local = app.local_control_plane
        assert local is not None and local.data_dir == tmp_path / "data" / "control-plane"
        assert f"local control plane (started by agent-tui) · {local.url}" in heading(screen)

        client = await app.get_control_plane()
        created = await client.deployments.create(
            "local-one",
            source_revision_config={"langgraph_config_path": str(tmp_path / "nope.json")},
        )
        await pilot.press("r")
        await wait_for(pilot, lambda: names_shown(screen) == ["local-one"], what="its row")
        assert created.id == screen.table.items[0].deployment.id
        url = local.url
    assert app.local_control_plane is None  # stopped when the app ended
    async with httpx.AsyncClient(trust_env=False, timeout=2) as http:
        with pytest.raises(httpx.TransportError):
            await http.get(f"{url}/v2/deployments")


async def test_a_control_plane_serving_the_folder_is_used_not_a_second_one(
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """One local control plane per data folder: with `agent-tui control-plane serve`
    running, the app uses it (its heading says whose it is) instead of starting another,
    and sees what was deployed through it."""
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    monkeypatch.delenv("AGENT_TUI_CONTROL_PLANE_KEY", raising=False)
    with serving_control_plane(tmp_path) as (url, key, pid):
        headers = {"X-Api-Key": key}
        with httpx.Client(base_url=url, headers=headers, trust_env=False, timeout=30) as http:
            made = create_deployment(http, "served-elsewhere", str(tmp_path / "nope.json"))
        app = control_plane_app(agent_server_url, None)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_deployments(app, pilot, wait_for, rows=False)
            await wait_for(pilot, lambda: "local control plane" in heading(screen), what="heading")
            assert f"local control plane (process {pid}'s) · {url}" in heading(screen)
            assert app.local_control_plane is None  # none started here
            await wait_for(
                pilot, lambda: names_shown(screen) == ["served-elsewhere"], what="its row"
            )
            assert screen.table.items[0].deployment.id == made["id"]


async def test_deployments_open_while_the_agent_server_is_unreachable(
    free_port: int,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from agent_tui.tui.screens.startup import StartupScreen

    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    monkeypatch.delenv("AGENT_TUI_CONTROL_PLANE_KEY", raising=False)
    app = control_plane_app(f"http://127.0.0.1:{free_port}", None)  # nothing listens
    async with app.run_test(size=SIZE) as pilot:
        startup = app.screen
        assert isinstance(startup, StartupScreen)
        await wait_for(pilot, lambda: startup.failed, what="the failed start")
        await pilot.press("colon", *"deployments", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DeploymentsScreen), what="table")
        screen = app.screen
        assert isinstance(screen, DeploymentsScreen)
        await wait_for(pilot, lambda: "local control plane" in heading(screen), what="heading")
        await pilot.press("escape")
        assert app.screen is startup  # back where the user was


async def test_an_empty_control_plane_says_what_to_do(
    agent_server_url: str,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))  # a fresh local control plane
    monkeypatch.delenv("AGENT_TUI_CONTROL_PLANE_KEY", raising=False)
    app = control_plane_app(agent_server_url, None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(app, pilot, wait_for, rows=False)
        await wait_for(pilot, lambda: "none yet" in heading(screen), what="the hint")
        assert "n deploys a langgraph.json" in heading(screen)


def asked(app: Any) -> str:
    """The question of the confirmation on screen."""
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    return screen.question


@pytest.mark.usefixtures("plane_key")
async def test_a_patch_that_makes_no_revision_says_so_and_stays_on_the_list(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor, tmp_path: Path
) -> None:
    tuned = failed_deployment(plane, "tuned", tmp_path)
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_deployments(app, pilot, wait_for)
        assert screen.table.move_to(tuned["id"])
        await pilot.press("e")
        await screen_shown(pilot, DeploymentFormScreen, what="form")
        form = app.screen
        assert isinstance(form, DeploymentFormScreen)
        # source_config alone is not built: the spec makes no revision for it.
        form.query_one("#source_config", TextArea).text = '{"deployment_type": "dev"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the list")
        await toast_saying(pilot, "Updated deployment tuned (no new revision)")
        await pilot.pause()
        assert app.screen is screen  # no progress view of an old, finished revision
    with plane.http() as http:
        stored = http.get(f"/v2/deployments/{tuned['id']}").json()
        assert stored["source_config"]["deployment_type"] == "dev"
        assert stored["latest_revision_id"] == tuned["latest_revision_id"]
        http.delete(f"/v2/deployments/{tuned['id']}")


@pytest.mark.usefixtures("plane_key")
async def test_a_deployment_whose_first_build_failed_shows_the_failure_as_its_state(
    plane: SharedPlane, agent_server_url: str, wait_for: WaitFor, tmp_path: Path
) -> None:
    broken = failed_deployment(plane, "broken", tmp_path)
    app = control_plane_app(agent_server_url, plane.url)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_deployments(app, pilot, wait_for)
            row = next(r for r in cell_texts(screen) if r[0] == "broken")
            # Not "AWAITING_DATABASE": it waits for nothing, its build failed.
            assert row[1] == "BUILD_FAILED"
            index = [r[0] for r in cell_texts(screen)].index("broken")
            assert str(screen.table.get_row_at(index)[1].style) == "bold red"  # a failure's
    finally:
        with plane.http() as http:
            http.delete(f"/v2/deployments/{broken['id']}")
