"""What is wrong with a success body that is not what the API describes, in a few words:
`expected a list, got an object`, `items.0.key: expected a string, got a number`.

The transport raises `UnexpectedBody` with these words; they name JSON's types (what a
person reading the server's answer sees), not Python's, and never quote the body (it
may be large, or hold anything).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

# pydantic-core error types, by the JSON value they wanted.
_EXPECTED = {
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "none_required": "null",
    "datetime_type": "a date and time",
    "datetime_parsing": "a date and time",
    "datetime_from_date_parsing": "a date and time",
}


def json_kind(value: Any) -> str:
    """The JSON type of a decoded value, as a person would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def shape_problem(error: ValidationError) -> str:
    """The first thing wrong with a body, and how many more there are."""
    problems = error.errors(include_url=False)
    if not problems:  # pragma: no cover - pydantic raises with at least one
        return "its shape is not the one described"
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"])
    expected = _EXPECTED.get(first["type"])
    if first["type"] == "missing":
        text = f"{where or 'a field'} is missing"
    elif first["type"] == "recursion_loop":
        text = "it is nested deeper than can be read"
    elif expected is not None:
        text = f"expected {expected}, got {json_kind(first.get('input'))}"
        text = f"{where}: {text}" if where else text
    else:
        text = f"{where}: {first['msg']}" if where else first["msg"]
    more = len(problems) - 1
    if more:
        text += f"; and {more} more problem{'s' if more > 1 else ''}"
    return text
