"""Store items and cron jobs: the agent server's long-term memory and schedules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, field_validator

from agent_tui.client.models.agent_server import ApiModel

Namespace = tuple[str, ...]


def dotted(namespace: Namespace | list[str]) -> str:
    """A namespace written as the API's query form does: `users.u1.memories`."""
    return ".".join(namespace)


def namespace_of(text: str) -> Namespace:
    """`users.u1.memories` → `("users", "u1", "memories")`; empty text is the root."""
    return tuple(part for part in text.split(".")) if text else ()


class StoreItem(ApiModel):
    namespace: list[str]
    key: str
    value: Any = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Set by a search; `None` when the server has no vector index (no semantic ranking).
    score: float | None = None

    @property
    def ns(self) -> Namespace:
        return tuple(self.namespace)


class Cron(ApiModel):
    cron_id: str
    assistant_id: str | None = None
    thread_id: str | None = None
    schedule: str = ""
    timezone: str | None = None
    end_time: datetime | None = None
    next_run_date: datetime | None = None
    enabled: bool = True
    on_run_completed: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    user_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    first_run_id: str | None = None
    """Not the server's field: the run a server started at once when the cron was made
    (Aegra answers a create with that run)."""

    @field_validator("payload", "metadata", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("end_time", "next_run_date", mode="before")
    @classmethod
    def _unreadable_time_is_none(cls, value: Any) -> Any:
        # The server stores `end_time` as sent, unchecked ("yesterday" is accepted):
        # one such cron must not make every list of crons fail. The text stays in
        # `payload.end_time`.
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                return None
        return value

    @property
    def input(self) -> Any:
        return self.payload.get("input")
