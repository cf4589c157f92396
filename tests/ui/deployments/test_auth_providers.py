"""The OAuth providers screen against a real local control plane."""

from __future__ import annotations

import uuid
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from agent_tui.client import ControlPlaneClient, NotFound
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.auth_providers import (
    MASK,
    AuthProvidersScreen,
    ProviderFormScreen,
    mask_secrets,
)
from tests.support import deployment_forms as support
from tests.support.deployment_forms import SIZE, FormsApp, screen_of, shows, type_into
from tests.support.screen import screen_text, toast_saying, toasts_shown
from tests.support.waiting import WaitFor

control_plane = support.control_plane  # fixtures: one local control plane for this module
cp_client = support.cp_client

CLIENT_SECRET = "oauth-secret-51c2"  # typed masked; the server never returns it


async def opened(app: FormsApp, pilot: Pilot[Any], wait_for: WaitFor) -> AuthProvidersScreen:
    """`:providers`, as the user types it."""
    assert await app.run_command(":providers")
    screen = await screen_of(pilot, wait_for, AuthProvidersScreen, "the providers")
    assert isinstance(screen, AuthProvidersScreen)
    return screen


async def test_providers_are_listed_created_and_deleted_with_a_confirmation(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    existing = f"github-{uuid.uuid4().hex[:6]}"
    await cp_client.auth_providers.create(
        existing,
        "GitHub",
        "gh-client",
        "https://github.com/login/oauth/authorize",
        "https://github.com/login/oauth/access_token",
        client_secret="never-shown",
    )
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await opened(app, pilot, wait_for)
        await wait_for(pilot, lambda: screen.table.get_item(existing) is not None, what="the row")
        await shows(pilot, wait_for, existing)  # the row may be painted a frame later
        text = screen_text(app)
        assert existing in text and "GitHub" in text and "gh-client" in text

        await pilot.press("n")
        form = await screen_of(pilot, wait_for, ProviderFormScreen, "the form")
        new_id = f"slack-{uuid.uuid4().hex[:6]}"
        for field, value in (("provider_id", new_id), ("name", "Slack"), ("client_id", "sc")):
            form.query_one(f"#{field}", Input).value = value
        await type_into(pilot, "#client_secret", CLIENT_SECRET)
        assert CLIENT_SECRET not in screen_text(app)  # masked as typed
        form.query_one("#auth_url", Input).value = "https://slack.com/oauth/v2/authorize"
        form.query_one("#token_url", Input).value = "https://slack.com/api/oauth.v2.access"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                app.screen is screen
                and screen.table.selected_item is not None
                and screen.table.selected_item.provider_id == new_id
            ),
            what="the new provider selected",
        )
        await toast_saying(pilot, f"Created OAuth provider {new_id}")
        assert (await cp_client.auth_providers.get(new_id)).client_id == "sc"

        await pilot.press("y")
        raw = await screen_of(pilot, wait_for, RawJsonScreen, "the raw JSON")
        assert new_id in screen_text(app) and CLIENT_SECRET not in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: raw not in app.screen_stack, what="the JSON closed")

        await pilot.press("ctrl+d")
        await screen_of(pilot, wait_for, ConfirmScreen, "the question")
        assert f"Delete OAuth provider {new_id} (Slack)?" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.table.get_item(new_id) is None, what="the row gone")
        await toast_saying(pilot, f"Deleted OAuth provider {new_id} (Slack)")
        try:
            await cp_client.auth_providers.get(new_id)
            raise AssertionError("the provider is still there")
        except NotFound:
            pass
        assert screen.table.get_item(existing) is not None  # the other one stays


async def test_a_server_422_shows_under_the_field_and_keeps_the_form(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    app = FormsApp(cp_client)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(app, pilot, wait_for)
        await pilot.press("n")
        form = await screen_of(pilot, wait_for, ProviderFormScreen, "the form")
        await pilot.press("ctrl+s")
        await shows(pilot, wait_for, "fix the 5 problems marked above")  # checked before sending
        assert form.query_one("#provider_id", Input).has_focus

        await type_into(pilot, "#provider_id", "has space")  # the server's pattern refuses it
        form.query_one("#name", Input).value = "Bad"
        form.query_one("#client_id", Input).value = "c"
        form.query_one("#auth_url", Input).value = "https://example.com/auth"
        form.query_one("#token_url", Input).value = "https://example.com/token"
        await pilot.press("ctrl+s")
        await shows(pilot, wait_for, "The server refused 1 field, marked above.")
        assert "String should match pattern" in str(form.query_one("#provider_id-problem").render())
        assert form.is_current and form.query_one("#provider_id", Input).value == "has space"
        assert form.query_one("#provider_id", Input).has_focus
        await pilot.press("escape")
        assert app.screen is screen


async def test_a_read_only_context_refuses_to_delete(
    cp_client: ControlPlaneClient, wait_for: WaitFor
) -> None:
    kept = f"ro-{uuid.uuid4().hex[:6]}"
    await cp_client.auth_providers.create(kept, "Kept", "c", "https://a.test", "https://t.test")
    app = FormsApp(cp_client, readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await opened(app, pilot, wait_for)
        await wait_for(pilot, lambda: screen.table.get_item(kept) is not None, what="the row")
        assert screen.table.move_to(kept)
        await pilot.press("ctrl+d")
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen | ProviderFormScreen)
        refusals = [said for said in await toasts_shown(pilot, 2) if "Read-only mode" in said]
        assert refusals == [
            "Refused\nRead-only mode: cannot delete an OAuth provider (the context 'prod' is read-only)",
            "Refused\nRead-only mode: cannot create an OAuth provider (the context 'prod' is read-only)",
        ]
    assert (await cp_client.auth_providers.get(kept)).name == "Kept"


def test_secret_looking_fields_are_masked_in_the_raw_view() -> None:
    raw = {
        "client_secret": "s",
        "token_url": "https://t",
        "nested": [{"api_key": "k", "password": "", "name": "n"}],
    }
    assert mask_secrets(raw) == {
        "client_secret": MASK,
        "token_url": "https://t",
        "nested": [{"api_key": MASK, "password": "", "name": "n"}],
    }
