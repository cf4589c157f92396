"""What a user types about the Store, checked before anything is sent (headless).

The `:store` screen's item form and search form read a namespace written with dots
(`users.u1.memories`, the API's query form), a key, a value as JSON, a TTL in minutes,
a JSON `filter` and a natural-language `query`. Each check raises `StoreInputError`
naming the field, so a form shows the reason under that field and keeps the text.

The server's own rules, checked here so a typo never becomes a request: a namespace
label is a non-empty string without a dot or NUL; a value is a JSON object (the API takes a
dict); a TTL is a positive number of minutes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_tui.client.models.memory import Namespace, StoreItem
from agent_tui.text.user_json import JsonTextError, parse_json


class StoreInputError(ValueError):
    """Input that cannot become a request; `field` says which input, `str()` why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return self.message


def parse_namespace(text: str, *, field: str = "namespace") -> Namespace:
    """`users.u1.memories` → `("users", "u1", "memories")`; at least one label, none empty."""
    text = text.strip()
    if not text:
        raise StoreInputError(field, "required, like users.u1.memories")
    labels = tuple(text.split("."))
    if any(not label for label in labels):
        raise StoreInputError(field, "a label is empty (two dots, or a dot at an end)")
    if any("\x00" in label for label in labels):
        raise StoreInputError(field, "a label cannot hold a NUL character")
    return labels


def parse_value(text: str, *, field: str = "value") -> dict[str, Any]:
    """The item's value: a JSON object (the API stores a dict)."""
    if not text.strip():
        raise StoreInputError(field, 'required: a JSON object, like {"city": "Paris"}')
    try:
        value = parse_json(text, field)
    except JsonTextError as error:
        raise StoreInputError(field, str(error)) from None
    if not isinstance(value, dict):
        raise StoreInputError(field, 'must be a JSON object, like {"city": "Paris"}')
    return value


def parse_ttl(text: str, *, field: str = "ttl") -> float | None:
    """Minutes until the item expires; empty is never."""
    text = text.strip()
    if not text:
        return None
    try:
        minutes = float(text)
    except ValueError:
        raise StoreInputError(field, f"{text!r} is not a number of minutes") from None
    if not minutes > 0 or minutes == float("inf"):
        raise StoreInputError(field, "must be a positive number of minutes (empty: never)")
    return minutes


@dataclass(frozen=True, slots=True)
class ItemDraft:
    """One item to put, checked: `put_item(namespace, key, value, ttl=ttl)`."""

    namespace: Namespace
    key: str
    value: dict[str, Any]
    ttl: float | None = None

    @classmethod
    def from_input(cls, *, namespace: str, key: str, value: str, ttl: str = "") -> ItemDraft:
        """Checked field by field, in the form's order: the first problem is raised."""
        labels = parse_namespace(namespace)
        if not key:
            raise StoreInputError("key", "required")
        return cls(labels, key, parse_value(value), parse_ttl(ttl))


@dataclass(frozen=True, slots=True)
class StoreSearch:
    """A server-side search inside the selected namespace: `filter` (exact match on the
    value's keys) and a natural-language `query` (ranked only when the server has an index)."""

    filter: dict[str, Any] = field(default_factory=dict)
    query: str = ""

    @classmethod
    def from_input(cls, *, filter: str, query: str) -> StoreSearch:
        text = filter.strip()
        parsed: Any = {}
        if text:
            try:
                parsed = parse_json(text, "filter")
            except JsonTextError as error:
                raise StoreInputError("filter", str(error)) from None
            if not isinstance(parsed, dict):
                raise StoreInputError("filter", 'must be a JSON object, like {"city": "Paris"}')
        return cls(parsed, query.strip())

    @property
    def active(self) -> bool:
        return bool(self.filter or self.query)

    def kwargs(self) -> dict[str, Any]:
        """The `search_items` keywords this search adds."""
        return {"filter": self.filter or None, "query": self.query or None}

    def describe(self) -> str:
        parts = []
        if self.filter:
            parts.append(f"filter {json.dumps(self.filter, ensure_ascii=False)}")
        if self.query:
            parts.append(f"query {self.query!r}")
        return " · ".join(parts)


def unranked(items: list[StoreItem]) -> bool:
    """True when a query came back with no scores at all: the server has no store index,
    so the query neither ranked nor narrowed anything."""
    return bool(items) and all(item.score is None for item in items)
