"""What every agent-tui screen shares: worker failures go to one place, the app."""

from __future__ import annotations

from typing import TypeVar

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
    """Base screen. `Worker.StateChanged` does not bubble, so forward failures to the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.post_message(WorkerFailed(event.worker))
