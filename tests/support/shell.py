"""A resource screen over an in-memory list, inside the shell, for the shell's own tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.screen import Screen

from agent_tui.client import AgentServerClient, ApiError, RetryPolicy
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.shell import ShellApp
from agent_tui.tui.widgets.resource_table import Column, status_text


@dataclass
class Item:
    item_id: str
    name: str
    status: str = "idle"
    extra: dict[str, Any] = field(default_factory=dict)

    def raw(self) -> dict[str, Any]:
        return {"item_id": self.item_id, "name": self.name, "status": self.status, **self.extra}


def make_items(count: int) -> list[Item]:
    statuses = ["idle", "busy", "interrupted", "error"]
    return [Item(f"item-{n:05d}", f"name {n}", statuses[n % 4]) for n in range(count)]


class ListScreen(ResourceScreen[Item]):
    RESOURCE = "widget"
    RESOURCES = "widgets"
    PAGE_SIZE = 50
    VERBS = frozenset({"new", "edit", "delete"})

    def __init__(self, items: list[Item], *, fail_with: ApiError | None = None) -> None:
        super().__init__()
        self.source = items
        self.fetches: list[tuple[int, int]] = []
        self.deleted: list[str] = []
        self.created = 0
        self.fail_with = fail_with

    def columns(self) -> Sequence[Column[Item]]:
        return [
            Column("id", "ID", lambda item: item.item_id),
            Column("name", "Name", lambda item: item.name),
            Column("status", "Status", lambda item: status_text(item.status)),
        ]

    def item_id(self, item: Item) -> str:
        return item.item_id

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Item]:
        self.fetches.append((offset, limit))
        if self.fail_with is not None:
            raise self.fail_with
        return self.source[offset : offset + limit]

    def new_item(self) -> None:
        self.created += 1

    async def delete_item(self, item: Item) -> None:
        self.deleted.append(item.item_id)
        self.source.remove(item)


class ShellHarness(ShellApp):
    """The shell with one screen pushed over a stand-in home screen."""

    def __init__(
        self,
        screen: Screen[Any] | None = None,
        *,
        readonly: bool = False,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__(keymap=keymap)
        self.readonly = readonly
        # "Connected": routes that need an agent server open; this one is nowhere.
        self.client = AgentServerClient("http://127.0.0.1:9", retry=RetryPolicy(attempts=1))
        self.first = screen
        self.copied: list[str] = []

    def on_mount(self) -> None:
        self.push_screen(Screen())  # the home screen's place in the stack
        if self.first is not None:
            self.push_screen(self.first)

    def copy_to_clipboard(self, text: str) -> None:
        self.copied.append(text)
        super().copy_to_clipboard(text)
