"""JSON typed by the user: parsed in one place, with one way of saying what is wrong (headless).

Forms (metadata, context fields, "other keys", deployment configs), thread search and
create, `agent-tui threads --metadata` and the interrupt prompt all read JSON that a
person typed. The error names the field when the caller gives one and says where the
JSON broke: `metadata is not valid JSON: Expecting value at line 1, column 7`.
"""

from __future__ import annotations

import json
from typing import Any


class JsonTextError(ValueError):
    """Typed text that is not the JSON asked for, in words for the user."""


def _where(error: json.JSONDecodeError) -> str:
    return f"{error.msg} at line {error.lineno}, column {error.colno}"


def parse_json(text: str, what: str | None = None) -> Any:
    """`text` as a JSON value; `JsonTextError` saying where it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        subject = f"{what} is not" if what else "not"
        raise JsonTextError(f"{subject} valid JSON: {_where(error)}") from None
    except RecursionError:
        raise JsonTextError(f"{what or 'the JSON'} is nested too deeply") from None


def parse_json_object(text: str, what: str = "value") -> dict[str, Any]:
    """A JSON object (metadata, a config, other keys); empty text is `{}`."""
    if not text.strip():
        return {}
    value = parse_json(text, what)
    if not isinstance(value, dict):
        raise JsonTextError(f'{what} must be a JSON object, like {{"key": "value"}}')
    return value


def json_or_text(text: str) -> Any:
    """What the user meant: JSON when `text` parses as JSON (`3`, `true`, `null`, `"x"`,
    `[1]`), else the text itself (`yes`, `Ann Lee`)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text
