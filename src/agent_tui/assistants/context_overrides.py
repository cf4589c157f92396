"""The app's registry of assistants whose server record holds the wrong context
(`assistants.versions` says why and fills it). Light: the app makes one at start-up,
before its first paint, so this imports nothing of the diffing `versions` needs."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ContextOverride:
    """The context runs with `assistant_id` must pass, and the version it comes from."""

    assistant_id: str
    version: int
    context: dict[str, Any]


class ContextOverrides:
    """Per-app registry of assistants whose server record holds the wrong context."""

    def __init__(self) -> None:
        self._by_assistant: dict[str, ContextOverride] = {}

    def record(self, assistant_id: str, version: int, context: dict[str, Any]) -> None:
        self._by_assistant[assistant_id] = ContextOverride(
            assistant_id, version, copy.deepcopy(context)
        )

    def forget(self, assistant_id: str) -> None:
        """The assistant is right again (updated, fixed on the server) or gone."""
        self._by_assistant.pop(assistant_id, None)

    def get(self, assistant_id: str) -> ContextOverride | None:
        return self._by_assistant.get(assistant_id)

    def context_for_run(self, assistant_id: str) -> dict[str, Any] | None:
        """The `context=` a run with this assistant must pass, or None to pass none.

        A copy: a caller that adds run-specific keys does not change the registry.
        """
        override = self._by_assistant.get(assistant_id)
        return copy.deepcopy(override.context) if override is not None else None

    def __contains__(self, assistant_id: object) -> bool:
        return assistant_id in self._by_assistant

    def __len__(self) -> int:
        return len(self._by_assistant)
