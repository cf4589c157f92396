"""How the Store screen looks, on fixed data (the server's timestamps are fixed here)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.store.browser import StoreScreen
from tests.support.shell import ShellHarness
from tests.support.snapshots import repainted, settled, steady_cursors
from tests.support.waiting import wait_for

NAMESPACES = [
    ["users", "u1", "memories"],
    ["users", "u2", "memories"],
    ["users", "u2", "profile"],
    ["assistants", "chat"],
]


def fake_item(n: int, namespace: list[str], key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "namespace": namespace,
        "key": key,
        "value": value,
        "created_at": f"2026-11-21T09:{n:02d}:00+00:00",
        "updated_at": f"2026-11-21T10:{n:02d}:30+00:00",
    }


ITEMS = [
    fake_item(1, NAMESPACES[0], "paris", {"city": "Paris", "asked": 3}),
    fake_item(2, NAMESPACES[0], "rome", {"city": "Rome", "asked": 1}),
    fake_item(3, NAMESPACES[1], "oslo", {"city": "Oslo", "note": "[bold]not markup[/]"}),
    fake_item(4, NAMESPACES[2], "name", {"first": "Ann", "last": "Lee"}),
    fake_item(5, NAMESPACES[3], "style", {"tone": "brief", "language": "en"}),
]


def fake_server() -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        if request.url.path == "/store/namespaces":
            return httpx.Response(200, json={"namespaces": NAMESPACES})
        if request.url.path == "/store/items/search":
            prefix = body.get("namespace_prefix") or []
            found = [i for i in ITEMS if i["namespace"][: len(prefix)] == prefix]
            page = found[body["offset"] : body["offset"] + body["limit"]]
            return httpx.Response(200, json={"items": page})
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def test_store_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness(StoreScreen(client))
    app.client = client
    app.connection_status = "connected · http://agent.test"
    assert snap_compare(app, terminal_size=(120, 18), run_before=settled)


def store_app() -> ShellHarness:
    client = AgentServerClient("http://agent.test", http_transport=fake_server())
    app = ShellHarness(StoreScreen(client))
    app.client = client
    app.connection_status = "connected · http://agent.test"
    return app


def after(*keys: str) -> Callable[[Any], Any]:
    """Load the screen (the items focused), press `keys`, and let it settle."""

    async def run_before(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press(*keys)
        await settled(pilot)
        # The screen the keys open focuses its field when mounted: under load that came
        # after the picture, which then had no text cursor.
        app = pilot.app

        def opened_and_focused() -> bool:
            # The screen the keys open, not the Store screen below (its table has the
            # focus until the new screen is pushed: under load the picture was taken then).
            focused = app.focused
            # `has_focus`: set when the field handles its focus, after `app.focused` (its
            # cursor line is drawn from it; the picture had it without).
            return not isinstance(app.screen, StoreScreen) and (
                focused is not None and focused.screen is app.screen and focused.has_focus
            )

        await wait_for(pilot, opened_and_focused, what="the new screen's focused field")
        steady_cursors(pilot.app)
        # The cursors' rows drawn again, still, and the focused field's cursor line (under
        # load the picture was taken before it was drawn).
        await repainted(pilot.app)
        await pilot.pause()

    return run_before


def test_store_item_snapshot(snap_compare: Callable[..., bool]) -> None:
    """`enter` on an item: the item whole, its value as JSON."""
    assert snap_compare(store_app(), terminal_size=(100, 24), run_before=after("enter"))


def test_store_item_form_snapshot(snap_compare: Callable[..., bool]) -> None:
    """`e` on an item: the form to put it, its value as JSON, checked before sending."""
    assert snap_compare(store_app(), terminal_size=(100, 32), run_before=after("e"))


def test_store_search_snapshot(snap_compare: Callable[..., bool]) -> None:
    """`s`: a search on the server, a JSON filter and a natural-language query."""
    assert snap_compare(store_app(), terminal_size=(100, 28), run_before=after("s"))
