"""What an answer and a reference are, as evaluators compare them.

A run's output is the thread's final values reduced to: the chosen state keys (one key:
its value; several: an object of them), else the last message's text when the state has
messages, else the values whole. A reference is the example's `outputs` read the same
way: the chosen keys, else its one value (`{"answer": "PARIS"}` is `"PARIS"`), else the
last message's text, else the object whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_tui.text.message_text import answer_text


def _last_message_text(messages: Any) -> str | None:
    if not isinstance(messages, list) or not messages:
        return None
    last = messages[-1]
    if isinstance(last, dict):
        return answer_text(last)
    return str(last)


def _chosen(values: dict[str, Any], keys: Sequence[str]) -> Any:
    if len(keys) == 1:
        return values.get(keys[0])
    return {key: values.get(key) for key in keys}


def output_of(values: Any, keys: Sequence[str] = ()) -> Any:
    if not isinstance(values, dict):
        return values
    if keys:
        return _chosen(values, keys)
    text = _last_message_text(values.get("messages"))
    return text if text is not None else values


def reference_of(outputs: dict[str, Any] | None, keys: Sequence[str] = ()) -> Any:
    if outputs is None:
        return None
    if keys and any(key in outputs for key in keys):
        return _chosen(outputs, keys)
    if len(outputs) == 1:
        only = next(iter(outputs.values()))
        text = _last_message_text(only) if isinstance(only, list) else None
        return text if text is not None else only
    text = _last_message_text(outputs.get("messages"))
    return text if text is not None else outputs


def as_text(value: Any) -> str:
    """A value as the text evaluators match: a string as it is, else compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
