"""`GraphInput`: what a graph takes, from its input schema, and the check of typed JSON."""

from __future__ import annotations

import pytest

from agent_tui.assistants.graph_input import input_of
from agent_tui.text.user_json import JsonTextError

SCHEMA = {
    "type": "object",
    "properties": {
        "topic": {"type": "string"},
        "count": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "extra": {"$ref": "#/$defs/Thing"},
    },
    "required": ["topic"],
    "$defs": {"Thing": {"type": "object"}},
}


def test_a_schema_with_messages_takes_messages_and_none_takes_anything() -> None:
    assert input_of({"properties": {"messages": {"type": "array"}}}).takes_messages
    assert input_of(None).takes_messages
    assert not input_of(SCHEMA).takes_messages


def test_the_keys_are_named_with_what_they_take() -> None:
    graph = input_of(SCHEMA)
    assert graph.keys_text() == "topic (required, string), count (integer, null), extra (object)"
    assert graph.example() == '{"topic": ""}'


def test_a_good_object_passes() -> None:
    assert input_of(SCHEMA).check('{"topic": "owls", "count": null}') == {
        "topic": "owls",
        "count": None,
    }


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"topic": "x"', "the input is not valid JSON: Expecting ',' delimiter"),
        ('"owls"', 'the graph takes a JSON object of its input keys, like {"topic": ""}'),
        ('{"count": 1}', "missing topic"),
        ('{"topic": 3}', "topic must be string"),
        ('{"topic": "x", "count": true}', "count must be integer or null"),
        ('{"topic": "x", "topik": 1}', "no key topik in the graph's input"),
    ],
)
def test_what_is_wrong_is_said(text: str, words: str) -> None:
    with pytest.raises(JsonTextError) as raised:
        input_of(SCHEMA).check(text)
    assert words in str(raised.value)
