"""The deployment form against a real local control plane: checks, server errors, patch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TextArea

from agent_tui.client import ControlPlaneClient, RetryPolicy
from agent_tui.local import DEMO_CONFIG
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen
from tests.support import deployment_forms as support
from tests.support.deployment_forms import SIZE, FormsApp, screen_of, shows, type_into, unused_port
from tests.support.paths import GRAPHS_CONFIG
from tests.support.screen import screen_text, toast_saying
from tests.support.waiting import WaitFor

control_plane = support.control_plane  # fixtures: one local control plane for this module
cp_client = support.cp_client

SECRET_VALUE = "pst-value-6d1f"  # typed into a masked input: must never be painted
KEPT_VALUE = "kept-value-93ab"  # a stored secret's value: the form must not show it


async def names_on(client: ControlPlaneClient) -> list[str]:
    return [d.name async for d in client.deployments.iter_all()]


async def add_secret(pilot: Pilot[Any], name: str, value: str) -> None:
    await pilot.press("ctrl+n")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, DeploymentFormScreen)
    row = form.secret_rows[-1]
    assert row.name_input.has_focus
    await pilot.press(*name)
    row.value_input.focus()
    await pilot.press(*value)


def problem(form: DeploymentFormScreen, field: str) -> str:
    widget = form.query_one(f"#{field}-problem")
    return str(widget.render()) if widget.display else ""


async def test_the_form_checks_fields_before_sending(
    cp_client: ControlPlaneClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form(cwd=tmp_path)  # no langgraph.json here
        form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        # No project here: the form offers the bundled demo graphs, ready to deploy.
        assert form.query_one("#config_path", Input).value == str(DEMO_CONFIG)
        assert f"→ {DEMO_CONFIG} ✓" in screen_text(app)
        assert form.query_one("#name", Input).value == "demo"  # named after the project
        form.query_one("#name", Input).value = ""
        form.query_one("#config_path", Input).value = "./langgraph.json"
        await pilot.pause()
        # The live hint under the path names it once (read whole: a long temporary path
        # may not fit the screen's width).
        hint = str(form.query_one("#config-path-hint", Static).render())
        assert f"→ {tmp_path / 'langgraph.json'} ✗ does not exist" in " ".join(hint.split())
        await add_secret(pilot, "TOKEN", "")
        await add_secret(pilot, "SPARE", "x")
        await pilot.click(form.secret_rows[1].query_one(".secret-remove"))
        await wait_for(pilot, lambda: len(form.secret_rows) == 1, what="the row removed")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert problem(form, "name") == "a deployment needs a name"
        assert problem(form, "config_path") == f"{tmp_path / 'langgraph.json'} does not exist"
        # Read from the widgets: a long temporary path can push rows below the fold.
        secret_problem = form.secret_rows[0].query_one(".secret-problem", Static)
        assert str(secret_problem.render()) == "the secret TOKEN needs a value"
        assert "Nothing was sent: fix the 3 problems marked above." in screen_text(app)
        assert form.query_one("#name", Input).has_focus  # the first bad field

        await type_into(pilot, "#name", "checked-form")
        form.query_one("#config_path", Input).value = str(GRAPHS_CONFIG.parent)  # a folder
        form.secret_rows[0].value_input.focus()
        await pilot.press(*SECRET_VALUE)
        assert SECRET_VALUE not in screen_text(app)  # masked as typed
        assert f"→ {GRAPHS_CONFIG} ✓" in screen_text(app)  # its langgraph.json
        assert "checked-form" not in await names_on(cp_client)  # nothing was sent yet
        await pilot.press("escape")
        assert app.results == [None]


async def test_what_the_request_refuses_is_shown_field_by_field_and_keeps_what_was_typed(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form(cwd=GRAPHS_CONFIG.parent)
        form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        await type_into(pilot, "#name", "bad-ids")
        # Valid JSON, but the deployment request (the model the server checks with too)
        # wants a UUID and an enum: said under the field before anything is sent.
        form.query_one(
            "#source_config", TextArea
        ).text = '{"integration_id": "not-a-uuid", "deployment_type": "huge"}'
        await add_secret(pilot, "TOKEN", SECRET_VALUE)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.error is not None, what="the refusal")
        await pilot.pause()
        message = problem(form, "source_config")
        assert "UUID" in message and "'dev_free', 'dev', 'prod' or 'dev_zero'" in message
        text = screen_text(app)
        assert "Nothing was sent: fix the problem marked above." in text
        assert text.count("Input should be a valid UUID") == 1  # under its field only
        assert form.query_one("#source_config", TextArea).has_focus
        assert form.is_current  # still open, with everything typed
        assert form.query_one("#name", Input).value == "bad-ids"
        assert form.secret_rows[0].value_input.value == SECRET_VALUE
        assert SECRET_VALUE not in screen_text(app)
        assert "bad-ids" not in await names_on(cp_client)


async def test_a_source_the_local_control_plane_does_not_deploy_is_explained(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form()
        form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        await type_into(pilot, "#name", "from-github")
        form.query_one("#source", Select).value = "github"
        await pilot.pause()
        assert "deploys only internal_source" in screen_text(app)  # said before sending
        form.query_one("#config_path", Input).value = "agent/langgraph.json"
        await pilot.press("ctrl+s")
        await shows(pilot, wait_for, 'source "github" is not supported')
        assert form.is_current


async def test_a_network_failure_keeps_the_form(wait_for: WaitFor) -> None:
    async with ControlPlaneClient(
        f"http://127.0.0.1:{unused_port()}", retry=RetryPolicy(attempts=1)
    ) as offline:
        app = FormsApp(offline)
        async with app.run_test(size=SIZE) as pilot:
            app.open_form(cwd=GRAPHS_CONFIG.parent)
            form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
            await type_into(pilot, "#name", "offline")
            await pilot.press("ctrl+s")
            await shows(pilot, wait_for, "Could not create the deployment: cannot reach the")
            assert form.is_current and form.query_one("#name", Input).value == "offline"
            assert not form.query_one("#save").disabled  # ready to try again


async def test_a_read_only_context_refuses_to_create(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    app = FormsApp(cp_client, readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.open_form(cwd=GRAPHS_CONFIG.parent)
        await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        await type_into(pilot, "#name", "refused")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await toast_saying(pilot, "Read-only mode: cannot create a deployment")
        assert "refused" not in await names_on(cp_client)


async def test_patch_fixes_the_config_adds_a_secret_keeps_the_others_and_follows_it(
    cp_client: ControlPlaneClient,
    control_plane: LocalControlPlane,
    wait_for: WaitFor,
    tmp_path: Path,
) -> None:
    broken = tmp_path / "langgraph.json"
    broken.write_text('{"graphs": {"agent": "./missing.py:graph"}}')
    # Its build fails fast (or the patch's revision supersedes it): one real deploy.
    created = await cp_client.deployments.create(
        "patched",
        source_revision_config={"langgraph_config_path": str(broken)},
        secrets=[{"name": "KEPT", "value": KEPT_VALUE}],
    )
    app = FormsApp(cp_client, control_plane)
    async with app.run_test(size=SIZE) as pilot:
        app.open_form(created)
        form = await screen_of(pilot, wait_for, DeploymentFormScreen, "the form")
        assert form.query_one("#config_path", Input).value == str(broken)
        assert [row.name_input.value for row in form.secret_rows] == ["KEPT"]
        assert form.secret_rows[0].value_input.value == ""  # names only: empty keeps it
        await pilot.press("ctrl+s")
        await shows(pilot, wait_for, "Nothing changed: nothing was sent.")

        form.query_one("#config_path", Input).value = str(GRAPHS_CONFIG)
        await add_secret(pilot, "ADDED", SECRET_VALUE)
        text = screen_text(app)
        assert SECRET_VALUE not in text and KEPT_VALUE not in text
        # The control plane answers values masked and the list is sent whole: the kept
        # secret travels masked, and the local control plane keeps its stored value
        # (nothing to type again; tests/functional/control_plane checks the server's).
        await pilot.press("ctrl+s")
        progress = await screen_of(pilot, wait_for, RevisionProgressScreen, "the progress")
        patched = app.results[-1]
        assert patched is not None and patched.latest_revision_id != created.latest_revision_id
        assert progress.revision_id == patched.latest_revision_id
        await wait_for(pilot, lambda: progress.url is not None, what="DEPLOYED", timeout=90)
        await pilot.pause()
        text = screen_text(app)
        assert "✓ DEPLOYED after" in text
        assert SECRET_VALUE not in text and KEPT_VALUE not in text
        assert SECRET_VALUE not in "\n".join(progress.log_lines)
        assert "again" not in text
    stored = await cp_client.deployments.get(created.id)
    assert {s.name: s.value for s in stored.secrets} == {"KEPT": "********", "ADDED": "********"}
    assert stored.source_revision_config.langgraph_config_path == str(GRAPHS_CONFIG)
    assert stored.active_revision_id == patched.latest_revision_id
