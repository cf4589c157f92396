"""`checkpoint_diff`: structural diff of values, as text lines and JSON (no server)."""

from __future__ import annotations

from typing import Any

from agent_tui.client.models import ThreadState
from agent_tui.text.value_diff import ValueChange, diff_values, format_path
from agent_tui.threads.checkpoint_diff import diff_checkpoints, summarize


def human(ident: str, text: str) -> dict[str, Any]:
    return {"type": "human", "content": text, "id": ident}


def ai(ident: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "ai", "content": text, "id": ident, "tool_calls": [], **extra}


def lines(before: Any, after: Any) -> list[str]:
    return [change.line() for change in diff_values(before, after)]


def test_equal_values_have_no_changes() -> None:
    value = {"n": 1, "items": [1, 2], "plan": {"a": [{"b": 1}]}}
    assert diff_values(value, dict(value)) == []


def test_keys_added_removed_and_changed() -> None:
    # In document order: the keys of `before` (changed or removed), then the new keys.
    assert lines({"n": 1, "old": "x"}, {"n": 2, "new": True}) == [
        "~ n: 1 → 2",
        '- old: "x"',
        "+ new: true",
    ]


def test_nested_objects_diff_at_their_path() -> None:
    changes = diff_values(
        {"plan": {"steps": {"first": "a", "second": "b"}}},
        {"plan": {"steps": {"first": "a", "second": "c"}}},
    )
    assert changes == [ValueChange("changed", ("plan", "steps", "second"), "b", "c")]
    assert changes[0].where == "plan.steps.second"


def test_a_value_of_another_type_is_a_change() -> None:
    assert lines({"n": 1}, {"n": "1"}) == ['~ n: 1 → "1"']
    assert lines({"n": 1}, {"n": True}) == ["~ n: 1 → true"]


def test_items_appended_to_a_list() -> None:
    changes = diff_values({"items": [1, 2]}, {"items": [1, 2, 3, 4]})
    assert changes == [ValueChange("items_added", ("items",), after=[3, 4], index=2, appended=True)]
    assert changes[0].line() == "+ items: appended 2 items: [3, 4]"


def test_item_removed_from_the_middle_of_a_list() -> None:
    assert diff_values({"items": [1, 7, 2]}, {"items": [1, 2]}) == [
        ValueChange("items_removed", ("items",), before=[7], index=1)
    ]
    assert lines({"items": [1, 7, 2]}, {"items": [1, 2]}) == ["- items: removed at 1 1 item: [7]"]


def test_items_inserted_at_the_front_are_not_appended() -> None:
    assert lines({"items": [2, 3]}, {"items": [1, 2, 3]}) == ["+ items: inserted at 0 1 item: [1]"]


def test_one_item_replaced_in_place_shows_the_change_inside_it() -> None:
    changes = diff_values(
        {"docs": [{"title": "a", "score": 1}, {"title": "b"}]},
        {"docs": [{"title": "a", "score": 2}, {"title": "b"}]},
    )
    assert changes == [ValueChange("changed", ("docs", 0, "score"), 1, 2)]
    assert format_path(changes[0].path) == "docs[0].score"


def test_messages_are_matched_by_id_and_shown_by_content() -> None:
    before = {"messages": [human("h1", "hi"), ai("a1", "Hello")]}
    after = {"messages": [human("h1", "hi"), ai("a1", "Hello!"), human("h2", "weather?")]}
    changes = diff_values(before, after)
    assert [(c.kind, c.index) for c in changes] == [("message_changed", 1), ("message_added", 2)]
    assert [c.line() for c in changes] == [
        '~ messages: ai "Hello" (id a1) → "Hello!"',
        '+ messages: human "weather?" (id h2)',
    ]


def test_a_removed_message_and_a_change_outside_the_text() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    before = {"messages": [human("h1", "hi"), ai("a1", "")]}
    after = {"messages": [ai("a1", "", tool_calls=[call])]}
    assert lines(before, after) == [
        '- messages: human "hi" (id h1)',
        '~ messages: ai "" (id a1) → "→ get_weather(city=\\"Paris\\")"',  # with its args
    ]
    # Same text, another field changed: the line names the fields.
    usage = {"output_tokens": 3}
    assert lines({"messages": [ai("a1", "Hi")]}, {"messages": [ai("a1", "Hi", usage=usage)]}) == [
        '~ messages: ai "Hi" (id a1) fields usage'
    ]


def test_first_messages_in_an_empty_list_are_messages_not_items() -> None:
    assert lines({"messages": []}, {"messages": [human("h1", "hi")]}) == [
        '+ messages: human "hi" (id h1)'
    ]


def test_server_text_cannot_reach_the_terminal_as_control() -> None:
    hostile = "\x1b]52;c;cHduZWQ=\x07ok\x1b[2J"
    (line,) = lines({"messages": []}, {"messages": [human("h1", hostile)]})
    assert "\x1b" not in line
    assert line == '+ messages: human "ok" (id h1)'
    (line,) = lines({}, {"k\x1b[31m": "v\x9b"})
    assert "\x1b" not in line and "\x9b" not in line


def test_long_values_are_cut_in_lines_but_whole_in_json() -> None:
    big = "x" * 500
    (change,) = diff_values({}, {"big": big})
    assert len(change.line()) < 120 and change.line().endswith("…")
    assert change.as_json()["after"] == big


def state(cid: str, values: dict[str, Any], step: int, next_: list[str]) -> ThreadState:
    return ThreadState.model_validate(
        {
            "values": values,
            "next": next_,
            "metadata": {"step": step, "source": "loop"},
            "checkpoint": {"checkpoint_id": cid},
        }
    )


def test_checkpoint_diff_as_json_and_text() -> None:
    a = state("cp-a", {"n": 5, "items": []}, 0, ["inc"])
    b = state("cp-b", {"n": 6, "items": [5]}, 1, ["dbl"])
    diff = diff_checkpoints(a, b, writes_b={"inc": {"n": 6, "items": [5]}})
    assert diff.as_json() == {
        "a": {
            "checkpoint_id": "cp-a",
            "step": 0,
            "source": "loop",
            "next": ["inc"],
            "writes": None,
        },
        "b": {
            "checkpoint_id": "cp-b",
            "step": 1,
            "source": "loop",
            "next": ["dbl"],
            "writes": {"inc": {"n": 6, "items": [5]}},
        },
        "values": [
            {
                "kind": "changed",
                "path": ["n"],
                "before": 5,
                "after": 6,
                "index": None,
                "appended": False,
            },
            {
                "kind": "items_added",
                "path": ["items"],
                "before": None,
                "after": [5],
                "index": 0,
                "appended": True,
            },
        ],
        "next": {"a": ["inc"], "b": ["dbl"], "changed": True},
    }
    assert diff.lines() == [
        "a: step 0 loop cp-a",
        "b: step 1 loop cp-b",
        "",
        "values:",
        "  ~ n: 5 → 6",
        "  + items: appended 1 item: [5]",
        'next: ["inc"] → ["dbl"]',
        "written to make a: unknown",
        "written to make b:",
        "  inc: n: 6",
        "  inc: items: [5]",
    ]
    assert summarize(diff.values) == "2 changes: n, items"


def test_identical_checkpoints() -> None:
    a = state("cp-a", {"n": 1}, 0, [])
    diff = diff_checkpoints(a, a, writes_a={}, writes_b={})
    assert diff.empty
    assert diff.lines()[3:] == [
        "values: no change",
        "next: [] (same)",
        "written to make a: nothing",
        "written to make b: nothing",
    ]
