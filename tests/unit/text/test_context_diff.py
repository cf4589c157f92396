"""`context_diff`: what changed between two assistant contexts, and what an update drops."""

from __future__ import annotations

import subprocess
import sys

from agent_tui.text.context_diff import ContextChange, context_diff, dropped_keys


def test_added_removed_and_changed_keys_in_a_stable_order() -> None:
    old = {"step": 10, "double": False, "style": "plain"}
    new = {"step": 3, "style": "plain", "shout": True}
    assert context_diff(old, new) == [
        ContextChange("changed", ("step",), old=10, new=3),
        ContextChange("removed", ("double",), old=False),
        ContextChange("added", ("shout",), new=True),
    ]


def test_nested_objects_are_compared_key_by_key() -> None:
    old = {"model": {"name": "a", "temperature": 0.1, "stop": ["x"]}, "tools": ["t"]}
    new = {"model": {"name": "a", "temperature": 0.5}, "tools": ["t", "u"]}
    changes = context_diff(old, new)
    assert [(c.kind, c.key) for c in changes] == [
        ("changed", "model.temperature"),
        ("removed", "model.stop"),
        ("changed", "tools"),
    ]
    assert dropped_keys(old, new) == ["model.stop"]


def test_an_object_replaced_by_a_scalar_is_one_change() -> None:
    assert [(c.kind, c.key) for c in context_diff({"a": {"b": 1}}, {"a": 2})] == [("changed", "a")]


def test_json_equality_true_is_not_one_but_one_is_one_point_zero() -> None:
    assert [c.key for c in context_diff({"a": 1, "b": 1}, {"a": True, "b": 1.0})] == ["a"]


def test_equal_or_empty_contexts_have_no_changes() -> None:
    assert context_diff({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []
    assert context_diff(None, {}) == []
    assert dropped_keys({"step": 1}, {"step": 2}) == []


def test_update_to_a_smaller_context_drops_the_missing_keys() -> None:
    assert dropped_keys({"step": 10, "double": False}, {"step": 3}) == ["double"]
    assert dropped_keys({"step": 10, "double": False}, {}) == ["step", "double"]


def test_changes_read_as_one_line_each() -> None:
    changes = context_diff({"step": 10, "double": False}, {"step": 3, "style": "pirate"})
    assert [str(c) for c in changes] == [
        "~ step: 10 → 3",
        "- double = false",
        '+ style = "pirate"',
    ]


def test_the_module_is_headless() -> None:
    code = (
        "import sys, agent_tui.text.context_diff, agent_tui.assistants.graph_text, agent_tui.assistants.versions,"
        " agent_tui.assistants.schema_fields; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "False"
