"""JSON a person typed: parsed the same way everywhere, with the field and place it broke."""

from __future__ import annotations

import pytest

from agent_tui.text.user_json import JsonTextError, json_or_text, parse_json, parse_json_object


def test_bad_json_says_the_field_and_where_it_broke() -> None:
    with pytest.raises(JsonTextError) as caught:
        parse_json('{"a": }', "metadata")
    assert str(caught.value) == "metadata is not valid JSON: Expecting value at line 1, column 7"
    with pytest.raises(JsonTextError, match=r"^not valid JSON: "):
        parse_json("[1,")


def test_json_nested_without_end_is_refused_not_a_crash() -> None:
    with pytest.raises(JsonTextError, match="nested too deeply"):
        parse_json("[" * 100_000, "supersteps")


def test_an_object_is_required_where_one_is_asked_for() -> None:
    assert parse_json_object("  ") == {}
    assert parse_json_object('{"team": "x"}') == {"team": "x"}
    with pytest.raises(JsonTextError, match="config must be a JSON object"):
        parse_json_object("[1]", "config")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("3", 3), ("true", True), ("null", None), ('"3"', "3"), ("[1]", [1]), ("yes", "yes")],
)
def test_json_or_text_reads_json_else_keeps_the_text(typed: str, meant: object) -> None:
    assert json_or_text(typed) == meant
    assert json_or_text("[" * 100_000) == "[" * 100_000
