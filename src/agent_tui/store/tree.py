"""The Store's namespaces as a tree of prefixes, and which of them mention an id (headless).

`list_namespaces` answers whole namespaces (`("users", "u1", "memories")`); the `:store`
screen draws every prefix as a node (`users`, under it `u1`, under that `memories`). From a thread, `M`
shows only the namespaces that mention the thread: a label equal to the thread's id,
its assistant's id or its graph's id (memory is usually kept per user, per assistant or
per thread, with the id as one label).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tui.client.models.memory import Namespace, StoreItem

NAMESPACE_PAGE = 100  # namespaces per `list_namespaces` request
NAMESPACE_CAP = 2000  # the tree shows at most this many namespaces (the heading says so)


@dataclass(frozen=True, slots=True)
class Mention:
    """An id whose namespaces are wanted, and what it is (for the heading): `thread 1b2c…`."""

    what: str
    id: str


def thread_mentions(thread_id: str, metadata: Mapping[str, Any] | None) -> list[Mention]:
    """The ids a thread's memory would be filed under: the thread's own, and the assistant
    and graph its metadata names (runs record both there)."""
    found = [Mention("thread", thread_id)]
    for key, what in (("assistant_id", "assistant"), ("graph_id", "graph")):
        value = (metadata or {}).get(key)
        if isinstance(value, str) and value and all(m.id != value for m in found):
            found.append(Mention(what, value))
    return found


def mentioning(namespaces: Iterable[Namespace], mentions: Sequence[Mention]) -> list[Namespace]:
    """The namespaces with a label equal to one of the mentioned ids, those of the first
    mention first (the thread's own memory before its assistant's), else in the given order."""
    rank: dict[str, int] = {}
    for index, mention in enumerate(mentions):
        rank.setdefault(mention.id, index)
    found = [ns for ns in namespaces if rank.keys() & set(ns)]
    return sorted(found, key=lambda ns: min(rank[label] for label in ns if label in rank))


@dataclass(slots=True)
class PrefixNode:
    """One prefix of the loaded namespaces: its label, the prefixes below it (in the
    server's order), and whether it is itself a namespace (holds items directly)."""

    prefix: Namespace
    children: dict[str, PrefixNode] = field(default_factory=dict)
    is_namespace: bool = False

    @property
    def label(self) -> str:
        return self.prefix[-1] if self.prefix else ""

    def namespaces_below(self) -> int:
        """How many namespaces this prefix holds, itself included."""
        return int(self.is_namespace) + sum(c.namespaces_below() for c in self.children.values())


def prefix_tree(namespaces: Iterable[Namespace], root: Namespace = ()) -> PrefixNode:
    """Every prefix of `namespaces` under `root`, as nested nodes."""
    top = PrefixNode(root)
    for namespace in namespaces:
        if namespace[: len(root)] != root:
            continue
        node = top
        for depth in range(len(root), len(namespace)):
            label = namespace[depth]
            child = node.children.get(label)
            if child is None:
                child = node.children[label] = PrefixNode(namespace[: depth + 1])
            node = child
        node.is_namespace = True
    return top


def item_row_id(item: StoreItem) -> str:
    """A table row key for an item: its namespace and key (a key repeats across namespaces)."""
    return json.dumps([*item.namespace, item.key], ensure_ascii=False)


def value_preview(value: Any) -> str:
    """The value on one line, as compact JSON (the table cuts it to the column)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
