"""What the user is looking at: context > assistant > thread. Headless and observable.

The app holds one `Selection` (`app.selection`); screens set what they show, and the
breadcrumb in the header listens:

    self.app.selection.update(assistant="my-bot", thread=None)
    unsubscribe = app.selection.subscribe(callback)   # callback(selection)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Listener = Callable[["Selection"], None]

_FIELDS = ("context", "deployment", "assistant", "thread")


class Selection:
    """The current context, deployment, assistant and thread (names or ids, or None)."""

    def __init__(self, context: str | None = None) -> None:
        self.context: str | None = context
        self.deployment: str | None = None
        self.assistant: str | None = None
        self.thread: str | None = None
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def update(self, **changes: Any) -> None:
        """Set some of context/deployment/assistant/thread and tell the listeners."""
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise TypeError(f"unknown selection fields: {', '.join(sorted(unknown))}")
        if all(getattr(self, name) == value for name, value in changes.items()):
            return
        for name, value in changes.items():
            setattr(self, name, value)
        for listener in list(self._listeners):
            listener(self)

    @property
    def trail(self) -> list[tuple[str, str]]:
        """(kind, value) for each part that is set, outermost first."""
        return [(name, value) for name in _FIELDS if (value := getattr(self, name))]
