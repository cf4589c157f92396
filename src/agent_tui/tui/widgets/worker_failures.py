"""Worker failures, wherever the worker ran, go to the app's one handler.

Textual posts `Worker.StateChanged` to the node that started the worker only (the
message does not bubble), so a failure on a modal or a widget would end silently: a
chat stream that raised would leave the pane at "running" with no word said. Every
screen, modal and widget of ours that runs workers mixes in `ReportsWorkerFailures`
(`AgentScreen` does for screens); `tests/ui/app/test_worker_failures.py` finds them in
the code and checks that none is missed. The app (`shell.ShellApp.worker_failed`) logs
the traceback and tells the user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from textual.dom import DOMNode

    _Node = DOMNode
else:
    # A plain mixin at run time: a DOMNode base here would join the class's CSS type
    # chain and its default-CSS order, and a modal lost its dimmed backdrop.
    _Node = object


class WorkerFailed(Message):
    """A worker ended with an exception it did not handle; the app reports it."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker


class ReportsWorkerFailures(_Node):
    """Mixed in before the Textual base: `class ChatPane(ReportsWorkerFailures, Vertical)`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.worker_failed(event.worker)
            self.app.post_message(WorkerFailed(event.worker))

    def worker_failed(self, worker: Worker[object]) -> None:
        """A worker of this node raised: put right what it left half done (the app shows
        and logs the error itself)."""
