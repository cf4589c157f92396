"""Context schema → form fields, and typed input back to values (what the form sends)."""

from __future__ import annotations

import pytest

from agent_tui.assistants.schema_fields import (
    UNSET,
    FieldProblem,
    check_choice,
    fields_from_schema,
    other_keys,
    parse_json_object,
    parse_text,
    text_for,
)

# The demo chat graph's context schema, as `GET /assistants/{id}/schemas` answers.
CHAT_SCHEMA = {
    "properties": {
        "style": {
            "default": "plain",
            "enum": ["plain", "pirate"],
            "title": "Style",
            "type": "string",
        },
        "shout": {"default": False, "title": "Shout", "type": "boolean"},
        "token_delay_ms": {
            "default": 20,
            "minimum": 0,
            "title": "Token Delay Ms",
            "type": "integer",
        },
    },
    "title": "ChatContext",
    "type": "object",
}


def test_each_json_type_maps_to_a_field_kind() -> None:
    schema = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "temperature": {"type": "number", "default": 0.5},
            "tags": {"type": "array", "items": {"type": "string"}},
            "model": {"$ref": "#/$defs/Model"},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "mode": {"const": "fast"},
        },
        "$defs": {"Model": {"type": "object", "properties": {"id": {"type": "string"}}}},
    }
    fields = {f.name: f for f in fields_from_schema(schema)}
    assert {name: f.kind for name, f in fields.items()} == {
        "name": "str",
        "temperature": "float",
        "tags": "json",
        "model": "json",
        "maybe": "int",
        "either": "json",
        "mode": "enum",
    }
    assert fields["name"].required and not fields["temperature"].required
    assert fields["maybe"].nullable and fields["maybe"].has_default
    assert fields["model"].json_type == "object"
    assert fields["temperature"].default_hint() == "default: 0.5"


def test_the_chat_schema_gives_a_choice_a_bool_and_a_bounded_int() -> None:
    style, shout, delay = fields_from_schema(CHAT_SCHEMA)
    assert (style.kind, style.choices, style.default) == ("enum", ("plain", "pirate"), "plain")
    assert (shout.kind, shout.label) == ("bool", "Shout")
    assert (delay.kind, delay.minimum) == ("int", 0)
    with pytest.raises(FieldProblem, match="at least 0"):
        parse_text(delay, "-1")
    with pytest.raises(FieldProblem, match="whole number"):
        parse_text(delay, "ten")
    assert parse_text(delay, " 5 ") == 5
    assert parse_text(delay, "") is UNSET  # not sent: the graph's default applies
    assert check_choice(style, "pirate") == "pirate"
    assert check_choice(shout, UNSET) is UNSET


def test_no_schema_means_no_fields() -> None:
    assert fields_from_schema(None) == []
    assert fields_from_schema({"type": "object"}) == []


def test_typed_values_are_checked_before_sending() -> None:
    fields = {
        f.name: f
        for f in fields_from_schema(
            {
                "type": "object",
                "required": ["n"],
                "properties": {
                    "n": {"type": "integer"},
                    "x": {"type": "number", "exclusiveMaximum": 1},
                    "cfg": {"type": "object"},
                    "flag": {"type": "boolean"},
                },
            }
        )
    }
    with pytest.raises(FieldProblem, match="required"):
        parse_text(fields["n"], "  ")
    with pytest.raises(FieldProblem, match="less than 1"):
        parse_text(fields["x"], "1")
    with pytest.raises(FieldProblem, match="must be a number"):
        parse_text(fields["x"], "nan?")
    with pytest.raises(FieldProblem, match="not valid JSON"):
        parse_text(fields["cfg"], "{oops")
    with pytest.raises(FieldProblem, match="JSON object"):
        parse_text(fields["cfg"], "[1]")
    assert parse_text(fields["cfg"], '{"a": [1]}') == {"a": [1]}
    assert parse_text(fields["flag"], "TRUE") is True
    with pytest.raises(FieldProblem, match="required"):
        check_choice(fields["n"], UNSET)


def test_current_values_are_written_back_the_way_they_parse() -> None:
    style, _, delay = fields_from_schema(CHAT_SCHEMA)
    assert text_for(delay, 7) == "7"
    assert parse_text(style, text_for(style, "pirate")) == "pirate"
    tags = fields_from_schema({"properties": {"t": {"type": "array"}}})[0]
    assert parse_text(tags, text_for(tags, ["a", "b"])) == ["a", "b"]


def test_metadata_and_other_keys() -> None:
    assert parse_json_object("") == {}
    assert parse_json_object('{"team": "x"}') == {"team": "x"}
    with pytest.raises(FieldProblem, match="metadata must be a JSON object"):
        parse_json_object("[]", "metadata")
    fields = fields_from_schema(CHAT_SCHEMA)
    assert other_keys(fields, {"style": "plain", "legacy": 1}) == {"legacy": 1}
