"""A response's JSON body, decoded by the faster of two decoders that can read it."""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic_core import from_json

# Bodies shorter than this are decoded by pydantic-core whatever their characters.
SHORT = 1024


def decoded_json(response: httpx.Response) -> Any:
    """The response's JSON. pydantic-core parses ASCII about twice as fast as `json` (a
    history page of 45 whole states, 1.1 MB: 10 against 22 ms of CPU), which was much of
    what opening a big thread spent on its first rows; on long non-ASCII text it is
    slower (`events._parse_json`). `response.json()` is the fallback, and the only
    decoder of what pydantic-core refuses (lone surrogate escapes, nesting deeper than
    200, a byte order mark, another encoding): its errors are the ones callers see."""
    content = response.content
    if len(content) < SHORT or content.isascii():
        try:
            return from_json(content)
        except ValueError:
            pass
    return response.json()


def not_json(response: httpx.Response, error: ValueError) -> str:
    """Why a body could not be read as JSON: what it is instead, or, when it says it is
    JSON, where it stops being so ("expected JSON, got application/json" says nothing)."""
    kind = response.headers.get("content-type", "no content type")
    if "json" not in kind.split(";")[0].lower():
        return f"expected JSON, got {kind}"
    if isinstance(error, json.JSONDecodeError):
        return f"{kind} that is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
    return f"{kind} that is not valid UTF-8 text"
