"""Shared by the Store screen tests: a namespace root of each test's own, the app around
the screen, and what the tree and the table show."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from agent_tui.client import AgentServerClient
from agent_tui.client.models.memory import Namespace
from agent_tui.store.tree import Mention
from agent_tui.tui.screens.store.browser import StoreScreen
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

S = TypeVar("S", bound=Screen[Any])
SIZE = (140, 36)


def unique_root() -> str:
    """A namespace root of this test's own: tests share one server."""
    return f"t{uuid.uuid4().hex[:8]}"


def store_app(
    client: AgentServerClient,
    prefix: Namespace = (),
    *,
    readonly: bool = False,
    mentions: Sequence[Mention] = (),
) -> tuple[ShellHarness, StoreScreen]:
    screen = StoreScreen(client, prefix=prefix, mentions=mentions)
    app = ShellHarness(screen, readonly=readonly)
    app.client = client
    return app, screen


def tree_labels(screen: StoreScreen) -> dict[Namespace, str]:
    """Each prefix in the tree → its label as shown (count included)."""
    tree = screen.namespace_tree
    found: dict[Namespace, str] = {}
    pending = [tree.root]
    while pending:
        node = pending.pop()
        if node.data is not None:
            found[node.data] = str(node.label)
        pending.extend(node.children)
    return found


def keys_shown(screen: StoreScreen) -> list[str]:
    table = screen.table
    return [table.get_row_at(i)[0].plain for i in range(table.row_count)]


def rows(screen: StoreScreen) -> list[list[str]]:
    table = screen.table
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


def heading(screen: StoreScreen) -> str:
    from textual.widgets import Static

    return str(screen.query_one("#resource-heading", Static).render())


async def opened(pilot: Any, wait_for: WaitFor, screen: StoreScreen, keys: int) -> None:
    """The tree drawn and `keys` items listed under the selected prefix."""
    await wait_for(pilot, lambda: screen.namespaces_loaded, what="the namespaces")
    await wait_for(pilot, lambda: screen.table.row_count == keys, what=f"{keys} items")


def select_key(screen: StoreScreen, key: str) -> None:
    """Put the table's cursor on the item `key` (the table focused, as a user would)."""
    [item] = [item for item in screen.table.items if item.key == key]
    screen.table.focus()
    assert screen.table.move_to(screen.item_id(item))


async def next_screen(
    pilot: Any, wait_for: WaitFor, kind: type[S], *, other_than: Screen[Any] | None = None
) -> S:
    """The screen of `kind` once it is the app's current one with its widgets mounted (a
    pushed screen is current a moment before it composed them); `other_than`: not that
    one (a `:store` from a Store screen pushes another Store screen)."""
    app = pilot.app

    def shown() -> bool:
        screen = app.screen
        return isinstance(screen, kind) and screen.is_mounted and screen is not other_than

    await wait_for(pilot, shown, what=kind.__name__, workers=False)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


def showing(app: App[Any], screen: Screen[Any]) -> bool:
    """`screen` is the one on top (a function: a test's narrowing of `app.screen` stays out)."""
    return app.screen is screen
