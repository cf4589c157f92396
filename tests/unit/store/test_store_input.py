"""What a user types about the Store, checked before it is sent; the namespace tree and
which namespaces mention a thread (headless)."""

from __future__ import annotations

import pytest

from agent_tui.client.models.memory import StoreItem
from agent_tui.store.item_input import (
    ItemDraft,
    StoreInputError,
    StoreSearch,
    parse_namespace,
    parse_ttl,
    unranked,
)
from agent_tui.store.tree import (
    Mention,
    mentioning,
    prefix_tree,
    thread_mentions,
    value_preview,
)


def error_of(**fields: str) -> tuple[str, str]:
    with pytest.raises(StoreInputError) as caught:
        ItemDraft.from_input(**fields)
    return caught.value.field, caught.value.message


def test_an_item_is_checked_field_by_field_before_it_is_sent() -> None:
    draft = ItemDraft.from_input(
        namespace=" users.u1.memories ", key="paris", value='{"city": "Paris"}', ttl="90"
    )
    assert draft == ItemDraft(("users", "u1", "memories"), "paris", {"city": "Paris"}, 90.0)
    ok = {"namespace": "users", "key": "k", "value": "{}", "ttl": ""}
    assert error_of(**{**ok, "namespace": ""})[0] == "namespace"
    assert error_of(**{**ok, "namespace": "users..x"}) == (
        "namespace",
        "a label is empty (two dots, or a dot at an end)",
    )
    assert error_of(**{**ok, "key": ""}) == ("key", "required")
    field, message = error_of(**{**ok, "value": '{"a": 1,}'})
    assert (
        field == "value" and message.startswith("value is not valid JSON") and "column" in message
    )
    assert error_of(**{**ok, "value": "[1, 2]"}) == (
        "value",
        'must be a JSON object, like {"city": "Paris"}',
    )
    assert error_of(**{**ok, "ttl": "soon"})[0] == "ttl"
    assert error_of(**{**ok, "ttl": "0"})[0] == "ttl"
    assert parse_ttl("") is None and parse_ttl(" 1.5 ") == 1.5
    with pytest.raises(StoreInputError, match="NUL"):
        parse_namespace("a.b\x00c")


def test_a_search_needs_a_json_object_filter_and_says_what_it_is() -> None:
    assert not StoreSearch.from_input(filter=" ", query=" ").active
    search = StoreSearch.from_input(filter='{"city": "Rome"}', query=" trips ")
    assert search.kwargs() == {"filter": {"city": "Rome"}, "query": "trips"}
    assert search.describe() == 'filter {"city": "Rome"} · query \'trips\''
    with pytest.raises(StoreInputError) as caught:
        StoreSearch.from_input(filter='{"city": ', query="")
    assert caught.value.field == "filter"
    with pytest.raises(StoreInputError, match="JSON object"):
        StoreSearch.from_input(filter='"Rome"', query="")


def test_no_scores_at_all_means_no_store_index() -> None:
    def item(score: float | None) -> StoreItem:
        return StoreItem(namespace=["a"], key="k", score=score)

    assert unranked([item(None), item(None)])
    assert not unranked([item(0.3), item(None)])
    assert not unranked([])


def test_namespaces_become_a_tree_of_prefixes() -> None:
    top = prefix_tree([("users", "u1", "memories"), ("users", "u1"), ("users", "u2"), ("x",)])
    assert list(top.children) == ["users", "x"]
    users = top.children["users"]
    assert list(users.children) == ["u1", "u2"]
    assert users.children["u1"].is_namespace and not users.is_namespace
    assert users.children["u1"].children["memories"].prefix == ("users", "u1", "memories")
    assert top.namespaces_below() == 4
    under = prefix_tree([("users", "u1"), ("other", "u1")], root=("users",))
    assert under.prefix == ("users",) and list(under.children) == ["u1"]


def test_a_thread_mentions_its_id_its_assistant_and_its_graph() -> None:
    mentions = thread_mentions("t-1", {"assistant_id": "a-1", "graph_id": "chat", "x": 1})
    assert mentions == [
        Mention("thread", "t-1"),
        Mention("assistant", "a-1"),
        Mention("graph", "chat"),
    ]
    assert thread_mentions("t-1", None) == [Mention("thread", "t-1")]
    namespaces = [("chat", "facts"), ("users", "u1"), ("threads", "t-1"), ("a-1", "t-1-not")]
    # Whole labels only; the thread's own first.
    assert mentioning(namespaces, mentions) == [
        ("threads", "t-1"),
        ("a-1", "t-1-not"),
        ("chat", "facts"),
    ]


def test_a_value_is_previewed_as_compact_json() -> None:
    assert value_preview({"city": "Paris", "n": [1, 2]}) == '{"city": "Paris", "n": [1, 2]}'
    assert value_preview("plain") == "plain"
