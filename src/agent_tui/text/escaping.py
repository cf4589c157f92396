"""Control characters written out instead of removed (headless, no Textual).

`sanitize.clean_text` drops what a terminal would act on, which is right for what a
human reads. Two places must keep the text but still not steer a terminal:

- the log file, where a server's error body is evidence (`escape_controls`: `\\x1b`);
- JSON output, whose values must stay exact (`escape_json_controls`: `\\u009b`), since
  `json.dumps(..., ensure_ascii=False)` escapes C0 controls but leaves C1 controls,
  DEL and bidi overrides raw.

One policy on every output path: what `clean_text` drops from a screen (controls, bidi
overrides and the invisible format characters, `sanitize.INVISIBLE`) is written out
here, never passed through raw — a zero-width space in a log line or a JSON value shows
as `\\u200b`, so two names that differ only by it never look the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agent_tui.text.sanitize import INVISIBLE, SURROGATES

# Every C0 control but newline and tab, DEL, C1, the bidi overrides and isolates, the
# invisible format characters, and lone surrogates (no output can encode one: written
# out, `\ud800` is what the server sent, and still valid JSON).
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + SURROGATES + "]"
)


def _written_out(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with each control character written out (`\\x1b`, `\\u202e`).

    Newlines and tabs stay, so tracebacks keep their shape.
    """
    if text.isprintable():  # the common case: no regex work
        return text
    return _CONTROL.sub(_written_out, text)


def escape_json_controls(text: str) -> str:
    """JSON text with its raw C1 controls, DEL and bidi overrides as `\\uXXXX` escapes.

    These can only occur inside JSON strings, where the escape is valid: any JSON reader
    gets the same value.
    """
    return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def exact_json(
    value: Any, *, indent: int | None = 2, default: Callable[[Any], Any] | None = str
) -> str:
    """`value` as JSON that gives every value back exactly (non-JSON values through
    `default`), readable (non-ASCII letters as they are), with nothing in it a terminal
    or a clipboard cannot take: controls, bidi overrides, invisible characters and lone
    surrogates as `\\uXXXX` escapes."""
    return escape_json_controls(
        json.dumps(value, indent=indent, ensure_ascii=False, default=default)
    )
