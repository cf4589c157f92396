"""`client.store` against the real agent server's Store (in-memory runtime)."""

from __future__ import annotations

import uuid

import pytest

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.client.models import dotted, namespace_of


@pytest.fixture
def root() -> str:
    """A namespace root of this test's own, so tests sharing the server do not meet."""
    return f"t{uuid.uuid4().hex[:8]}"


async def test_put_get_list_search_delete(client: AgentServerClient, root: str) -> None:
    await client.store.put_item((root, "u1", "memories"), "paris", {"city": "Paris"})
    await client.store.put_item((root, "u2"), "rome", {"city": "Rome", "n": 2})
    await client.store.put_item((root, "u2"), "oslo", {"city": "Oslo", "n": 3})

    item = await client.store.get_item((root, "u1", "memories"), "paris")
    assert (item.ns, item.key, item.value) == ((root, "u1", "memories"), "paris", {"city": "Paris"})
    assert item.updated_at is not None

    assert await client.store.list_namespaces(prefix=(root,)) == [
        (root, "u1", "memories"),
        (root, "u2"),
    ]
    assert await client.store.list_namespaces(prefix=(root,), max_depth=2) == [
        (root, "u1"),
        (root, "u2"),
    ]

    found = await client.store.search_items((root,), filter={"city": "Rome"})
    assert [i.key for i in found] == ["rome"]
    everything = await client.store.search_items((root,), limit=10)
    assert sorted(i.key for i in everything) == ["oslo", "paris", "rome"]
    page = await client.store.search_items((root,), limit=2, offset=2)
    assert len(page) == 1

    await client.store.delete_item((root, "u2"), "rome")
    with pytest.raises(NotFound, match="rome"):
        await client.store.get_item((root, "u2"), "rome")


async def test_overwrite_keeps_one_item_with_the_new_value(
    client: AgentServerClient, root: str
) -> None:
    await client.store.put_item((root,), "k", {"v": 1})
    await client.store.put_item((root,), "k", {"v": 2})
    items = await client.store.search_items((root,))
    assert [(i.key, i.value) for i in items] == [("k", {"v": 2})]


def test_namespaces_in_dotted_form_round_trip() -> None:
    assert namespace_of("users.u1.memories") == ("users", "u1", "memories")
    assert dotted(("users", "u1", "memories")) == "users.u1.memories"
    assert namespace_of("") == ()
