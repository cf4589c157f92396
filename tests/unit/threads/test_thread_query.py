"""Thread search and create input: what users type becomes requests, or a clear error."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.client.models import Thread
from agent_tui.threads.query import (
    ATTENTION_STATUSES,
    DEFAULT_PAGE_SIZE,
    LIST_EXTRACT,
    QueryError,
    ThreadDraft,
    ThreadPager,
    ThreadQuery,
    format_metadata,
    last_message_preview,
    parse_metadata,
    parse_supersteps,
)


def test_metadata_pairs_parse_values_as_json_when_valid() -> None:
    assert parse_metadata('graph_id=chat n=3 ok=true none=null user="Ann Lee" s=\'"3"\'') == {
        "graph_id": "chat",
        "n": 3,
        "ok": True,
        "none": None,
        "user": "Ann Lee",
        "s": "3",
    }
    assert parse_metadata("tags='[\"a\",1]'") == {"tags": ["a", 1]}
    assert parse_metadata("") == {}
    assert parse_metadata("  ") == {}
    assert parse_metadata("url=http://x/?a=b") == {"url": "http://x/?a=b"}


def test_metadata_as_a_json_object() -> None:
    assert parse_metadata('{"a": {"b": 1}}') == {"a": {"b": 1}}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("graph_id", "expected key=value, got 'graph_id'"),
        ("=x", "expected key=value"),
        ("a=1 a=2", "'a' is given twice"),
        ('user="Ann', "quote values"),
        ('{"a": }', "not valid JSON: Expecting value at line 1, column 7"),
        ("[1]", "expected key=value"),
    ],
)
def test_bad_metadata_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_metadata(text)
    assert caught.value.field == "metadata"
    assert says in str(caught.value)


def test_format_metadata_round_trips() -> None:
    metadata = {"graph_id": "chat", "n": 3, "s": "3", "user": "Ann Lee", "e": "", "d": {"x": 1}}
    assert parse_metadata(format_metadata(metadata)) == metadata


def test_query_from_input_builds_light_search_kwargs() -> None:
    query = ThreadQuery.from_input(
        status="Interrupted", metadata="graph_id=chat", sort_by="created_at", sort_order="asc"
    )
    assert query.kwargs(offset=200) == {
        "limit": DEFAULT_PAGE_SIZE,
        "offset": 200,
        "sort_by": "created_at",
        "sort_order": "asc",
        "status": "interrupted",
        "metadata": {"graph_id": "chat"},
        "select": ["thread_id", "status", "metadata", "created_at", "updated_at", "interrupts"],
        "extract": LIST_EXTRACT,
    }
    assert query.count_kwargs() == {"status": "interrupted", "metadata": {"graph_id": "chat"}}
    assert query.describe() == ("status=interrupted · graph_id=chat · by created_at asc · 100/page")


def test_query_defaults_are_newest_first_any_status() -> None:
    query = ThreadQuery.from_input(status="any", page_size="")
    assert (query.status, query.sort_by, query.sort_order) == (None, "updated_at", "desc")
    assert "status" not in query.kwargs()


@pytest.mark.parametrize(
    ("kwargs", "field", "says"),
    [
        ({"status": "bogus"}, "status", "'bogus' is not one of idle, busy, interrupted, error"),
        ({"sort_by": "name"}, "sort by", "not one of updated_at, created_at"),
        ({"sort_order": "up"}, "order", "'up' is not one of desc, asc"),
        ({"page_size": "ten"}, "page size", "'ten' is not a whole number"),
        ({"page_size": "0"}, "page size", "between 1 and 1000, got 0"),
        ({"page_size": 5000}, "page size", "between 1 and 1000, got 5000"),
    ],
)
def test_bad_query_input_names_the_field(kwargs: dict[str, str], field: str, says: str) -> None:
    with pytest.raises(QueryError) as caught:
        ThreadQuery.from_input(**kwargs)
    assert caught.value.field == field
    assert says in str(caught.value)


def thread(**fields: object) -> Thread:
    return Thread.model_validate({"thread_id": "t", **fields})


def test_preview_from_extracted_last_message() -> None:
    found = thread(extracted={"last_message": {"type": "ai", "content": "Hello\n  there"}})
    assert last_message_preview(found) == "ai: Hello there"


def test_preview_from_values_when_the_server_sent_them() -> None:
    messages = [
        {"type": "human", "content": "hi"},
        {"type": "ai", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}]},
    ]
    assert last_message_preview(thread(values={"messages": messages})) == "ai: a [image_url]"
    assert last_message_preview(thread(values={"n": 1})) == ""
    assert last_message_preview(thread(extracted={"last_message": None})) == ""


def test_preview_shows_tool_calls_when_there_is_no_text() -> None:
    message = {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {}}]}
    assert last_message_preview(thread(extracted={"last_message": message})) == "ai: → search()"
    message["tool_calls"] = [
        {"name": "deploy", "args": {"target": "staging", "dry": True}},
        {"name": "get_weather", "args": {"city": "Zürich"}},
    ]
    assert (
        last_message_preview(thread(extracted={"last_message": message}), width=200)
        == 'ai: → deploy(target="staging", dry=true), get_weather(city="Zürich")'
    )


def test_preview_is_cleaned_and_truncated() -> None:
    hostile = "[bold]x\x1b[2J\x1b]0;pwned\x07\x1b]52;c;aGVsbG8=\x07\x1b[31my" + "z" * 100
    preview = last_message_preview(thread(extracted={"last_message": hostile}), width=20)
    assert preview == "[bold]xy" + "z" * 11 + "…"
    assert len(preview) == 20


STEP = {"updates": [{"values": {"n": 1}, "as_node": "inc"}]}


def test_supersteps_forms() -> None:
    assert parse_supersteps('[{"updates": [{"values": {"n": 1}, "as_node": "inc"}]}]') == [STEP]
    assert parse_supersteps('{"updates": [{"values": {"n": 1}, "as_node": "inc"}]}') == [STEP]
    assert parse_supersteps('{"supersteps": [{"updates": []}]}') == [{"updates": []}]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("[1,", "not valid JSON: Expecting value at line 1, column 4"),
        ("[]", "a non-empty JSON list is needed"),
        ("[1]", 'superstep 1: an object with an "updates" list is needed'),
        ('[{"updates": [{"values": {}}]}]', 'superstep 1, update 1: "as_node"'),
        ('[{"updates": []}, {"updates": [1]}]', "superstep 2, update 1: an object is needed"),
        ('[{"updates": [{"as_node": "a", "valuez": 1}]}]', "unknown keys ['valuez']"),
    ],
)
def test_bad_supersteps_say_where(text: str, says: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_supersteps(text)
    assert caught.value.field == "supersteps"
    assert says in str(caught.value)


def test_draft_needs_a_graph_for_supersteps() -> None:
    assert ThreadDraft.from_input().kwargs() == {"metadata": None, "supersteps": None}
    steps = '[{"updates": [{"values": {"n": 1}, "as_node": "inc"}]}]'
    draft = ThreadDraft.from_input(metadata="graph_id=counter", supersteps=steps)
    assert draft.kwargs() == {"metadata": {"graph_id": "counter"}, "supersteps": [STEP]}
    with pytest.raises(QueryError, match="add graph_id=<graph>"):
        ThreadDraft.from_input(supersteps='[{"updates": []}]')


class FakeThreads:
    """`client.threads` with `search`/`count` over fixed lists, one per status."""

    def __init__(self, by_status: dict[str, int]) -> None:
        self.by_status = by_status
        self.calls: list[tuple[str | None, int]] = []

    async def search(self, **kwargs: Any) -> list[Thread]:
        status, offset, limit = kwargs.get("status"), kwargs["offset"], kwargs["limit"]
        self.calls.append((status, offset))
        count = self.by_status.get(status or "", 0)
        return [
            thread(thread_id=f"{status}-{i}") for i in range(offset, min(offset + limit, count))
        ]

    async def count(self, **kwargs: Any) -> int:
        return self.by_status.get(kwargs.get("status", ""), 0)


async def test_pager_reads_each_query_in_turn_until_exhausted() -> None:
    threads = FakeThreads({"error": 5, "interrupted": 3})
    pager = ThreadPager([ThreadQuery(status=s, page_size=2) for s in ATTENTION_STATUSES[::-1]])
    pages: list[list[str]] = []
    while not pager.exhausted:
        page = await pager.next_page(threads)  # type: ignore[arg-type]
        pages.append([t.thread_id for t in page])
    # Pages stay full across the switch from one query to the next; only the last is short.
    assert [len(page) for page in pages] == [2, 2, 2, 2, 0]
    ids = [thread_id for page in pages for thread_id in page]
    assert ids == [f"error-{i}" for i in range(5)] + [f"interrupted-{i}" for i in range(3)]
    assert await pager.next_page(threads) == []  # type: ignore[arg-type]
    assert await pager.count(threads) == 8  # type: ignore[arg-type]
    errors = [("error", 0), ("error", 2), ("error", 4)]
    assert threads.calls == [*errors, ("interrupted", 0), ("interrupted", 1), ("interrupted", 3)]


async def test_pager_fills_the_limit_it_is_given() -> None:
    threads = FakeThreads({"error": 3, "interrupted": 4})
    pager = ThreadPager([ThreadQuery(status=s, page_size=2) for s in ATTENTION_STATUSES[::-1]])
    first = await pager.next_page(threads, 5)  # type: ignore[arg-type]
    assert [t.thread_id for t in first] == [
        "error-0",
        "error-1",
        "error-2",
        "interrupted-0",
        "interrupted-1",
    ]
    rest = await pager.next_page(threads, 5)  # type: ignore[arg-type]
    assert [t.thread_id for t in rest] == ["interrupted-2", "interrupted-3"]
    assert pager.exhausted
