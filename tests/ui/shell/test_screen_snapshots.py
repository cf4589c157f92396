"""How the screens that had no picture look: start-up, OAuth providers (list and form)
and the attention queue, each opened the way the app opens it.

Fixed data keeps them stable run to run: a fake control plane for the providers, the
fake agent server of the modal snapshots for the attention queue, and an address where
nothing listens for the start-up failure. Screens are recognised by class name, so these
tests do not depend on which module holds which. (A revision's log is pictured with the
deployments, on their deployed control plane.)
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from agent_tui.client import ControlPlaneClient, RetryPolicy
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from tests.support.deployment_forms import FormsApp
from tests.support.snapshots import harness, showing, shown
from tests.support.waiting import WaitFor

# Nothing listens on the discard port: the connection is refused at once.
NOWHERE = "http://127.0.0.1:9"
# The start-up failure names the log file, under AGENT_TUI_HOME: a fixed folder, so the
# picture does not change with the temporary folder of the test session.
FIXED_HOME = "/tmp/agent-tui-snapshots"


def provider(n: int, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"0a0a0a0a-0000-4000-8000-{n:012x}",
        "provider_id": name.lower().replace(" ", "-"),
        "name": name,
        "client_id": f"client-{n}",
        "auth_url": f"https://{name.lower().split()[0]}.example/oauth/authorize",
        "token_url": f"https://{name.lower().split()[0]}.example/oauth/token",
        "created_at": f"2026-11-2{n}T09:00:00+00:00",
        "updated_at": f"2026-11-2{n}T09:30:00+00:00",
        **extra,
    }


PROVIDERS = [
    provider(1, "GitHub", provider_type="github"),
    provider(2, "Acme SSO", uses_pkce=True, code_challenge_method="S256"),
    provider(
        3, "Weather MCP", mcp_server_url="https://mcp.weather.example", is_dynamic_client=True
    ),
]


def fake_control_plane() -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/auth/providers" and request.method == "GET":
            return httpx.Response(200, json=PROVIDERS)
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


class ControlPlaneApp(FormsApp):
    """The shell on context `local` over a fake control plane, at its home screen."""

    TITLE = "agent-tui"

    def __init__(self) -> None:
        client = ControlPlaneClient(
            "http://control-plane.test",
            api_key="test-key",
            retry=RetryPolicy(attempts=1),
            http_transport=fake_control_plane(),
        )
        super().__init__(client)
        self._startup_theme = "textual-dark"  # not whatever another test saved

    def on_mount(self) -> None:
        super().on_mount()
        self.selection.update(context="local")
        self.push_screen(Screen())  # the home screen's place in the stack


async def providers_loaded(pilot: Pilot[Any], wait_for: WaitFor) -> None:
    """`:providers`, until its rows are in."""
    app = pilot.app
    assert isinstance(app, ControlPlaneApp)
    assert await app.open_resource("providers")
    screen = app.screen

    def loaded() -> bool:
        table = getattr(screen, "table", None)
        return table is not None and table.row_count == len(PROVIDERS) and not table.loading

    await shown(pilot, wait_for, loaded, "the providers")


def test_startup_failure_snapshot(
    snap_compare: Callable[..., bool],
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", FIXED_HOME)
    app = AgentTuiApp(RemoteServer(NOWHERE))
    request.addfinalizer(lambda: shutil.rmtree(FIXED_HOME, ignore_errors=True))

    async def run_before(pilot: Pilot[Any]) -> None:
        def failed() -> bool:
            return showing(pilot, "StartupScreen") and bool(getattr(app.screen, "failed", False))

        await shown(pilot, wait_for, failed, "the failure")

    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)


def test_providers_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await providers_loaded(pilot, wait_for)

    assert snap_compare(ControlPlaneApp(), terminal_size=(120, 12), run_before=run_before)


def test_provider_form_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await providers_loaded(pilot, wait_for)
        await pilot.press("n")
        await shown(pilot, wait_for, lambda: showing(pilot, "ProviderFormScreen"), "the form")

    assert snap_compare(ControlPlaneApp(), terminal_size=(100, 44), run_before=run_before)


def test_attention_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, type(harness()))
        assert await app.open_resource("attention")
        screen = app.screen

        def loaded() -> bool:
            table = getattr(screen, "table", None)
            return showing(pilot, "AttentionScreen") and bool(table and table.row_count)

        await shown(pilot, wait_for, loaded, "the threads needing attention")

    assert snap_compare(harness(), terminal_size=(110, 14), run_before=run_before)
