"""What every agent-tui screen shares: worker failures go to one place, the app."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState

ResultType = TypeVar("ResultType")


class WorkerFailed(Message):
    """A worker ended with an exception it did not handle; the app reports it."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker


class AgentScreen(Screen[ResultType]):
    """Base screen: bindings with ids, worker failures forwarded to the app."""

    # Textual's Screen bindings, redeclared with ids so a keymap can remap them.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "app.focus_next", "Focus Next", show=False, id="screen.focus_next"),
        Binding(
            "shift+tab",
            "app.focus_previous",
            "Focus Previous",
            show=False,
            id="screen.focus_previous",
        ),
        Binding(
            "ctrl+c,super+c",
            "screen.copy_text",
            "Copy selected text",
            show=False,
            id="screen.copy_text",
        ),
    ]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # `Worker.StateChanged` does not bubble: without this the app never hears of it.
        if event.state is WorkerState.ERROR:
            self.app.post_message(WorkerFailed(event.worker))
