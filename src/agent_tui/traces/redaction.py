"""Secrets out of a traced run before it is stored.

A run carries what its code was given: a chat model's invocation parameters (an
`api_key` passed in code), its serialized constructor, headers a graph put in its config
(`Authorization`), a key a user pasted into a message. None of it may reach the trace
store, which outlives the process and is shown on screen.

Two rules, applied to every value of a run (inputs, outputs, extra and its metadata,
events, serialized, error):

1. a key whose name says it holds a secret (`SECRET_KEY_NAME`: ``api_key``,
   ``openai_api_key``, ``authorization``, ``password``, ``x-api-key``, ``client_secret``,
   ``aws_secret_access_key``, ``access_token``, ``cookie`` …) has
   its value replaced whole by `REDACTED`, unless that value is a LangChain secret
   reference (``{"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}``), which names a
   variable and holds nothing;
2. inside any string, text shaped like a known key or token (`SECRET_TEXT`: OpenAI's
   ``sk-…``, LangSmith's ``lsv2_…``, ``Bearer …``, AWS access key ids, GitHub and Slack
   tokens) and the collector's own key are replaced by `REDACTED`.

Names such as ``max_tokens`` or ``token_usage`` are not secrets: rule 1 looks for
``token`` only as part of a named kind of token, or as the whole name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

REDACTED = "[redacted]"

SECRET_KEY_NAME = re.compile(
    r"""(?ix)
      secret | passw(?:or)?d | passphrase | credential | authorization | cookie | bearer
    | api[-_]?(?:key|token) | (?:private|access|signing|encryption)[-_]?key
    | (?:access|refresh|auth|session|id|service)[-_]?token
    | ^(?:x[-_])?(?:token|auth)$
    """
)
"""A mapping key whose value is a secret: any name holding one of these (any case, ``-``
or ``_``), or exactly ``token`` / ``auth``. ``max_tokens``, ``token_usage`` and
``input_tokens`` hold none of them."""

SECRET_TEXT = re.compile(
    r"""(?x)
      \bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}
    | \blsv2_(?:pt|sk)_[A-Za-z0-9_]{16,}
    | \b(?:lcp|ltc)_[A-Za-z0-9_-]{16,}
    | (?i:\bbearer)\s+[A-Za-z0-9._~+/=-]{8,}
    | \bAKIA[0-9A-Z]{16}\b
    | \bgh[pousr]_[A-Za-z0-9]{20,}
    | \bxox[abprs]-[A-Za-z0-9-]{10,}
    | \bAIza[0-9A-Za-z_-]{35}
    """
)
"""Text shaped like a key or token, wherever it appears in a string."""

_MARKERS = re.compile(r"sk-|lsv2_|lcp_|ltc_|earer|EARER|AKIA|gh[pousr]_|xox|AIza")
"""Every `SECRET_TEXT` match holds one of these: a string with none needs no regex (the
collector's hot path: most strings of a run are plain)."""
_MAX_DEPTH = 200


@lru_cache(maxsize=4096)
def is_secret_key(name: str) -> bool:
    """Whether a mapping key names a secret (cached: a run's keys repeat run after run)."""
    return SECRET_KEY_NAME.search(name) is not None


def is_secret_reference(value: object) -> bool:
    """A LangChain serialized secret: it names a variable, it holds no value."""
    return (
        isinstance(value, dict)
        and value.get("lc") == 1
        and value.get("type") == "secret"
        and set(value) <= {"lc", "type", "id"}
    )


class Redactor:
    """Applies both rules; ``also`` are exact strings to hide too (the collector's key)."""

    def __init__(self, also: Iterable[str] = ()) -> None:
        self._also = sorted((s for s in also if len(s) >= 8), key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self._also:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if len(text) < 16 or _MARKERS.search(text) is None:
            return text  # no pattern can match: the common case, no regex work
        return SECRET_TEXT.sub(REDACTED, text)

    def value(self, value: Any, depth: int = 0) -> Any:
        """``value`` with its secrets replaced (a new object where something changed)."""
        if isinstance(value, str):
            return self.text(value)
        if depth > _MAX_DEPTH:
            return value
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if (
                    isinstance(key, str)
                    and is_secret_key(key)
                    and item not in (None, "")
                    and not is_secret_reference(item)
                ):
                    out[key] = REDACTED
                else:
                    out[key] = self.value(item, depth + 1)
            return out
        if isinstance(value, list):
            return [self.value(item, depth + 1) for item in value]
        return value

    def run(self, run: dict[str, Any]) -> dict[str, Any]:
        """A run as the SDK sent it, every field redacted (ids and times too: harmless)."""
        return {key: self.value(item) for key, item in run.items()}
