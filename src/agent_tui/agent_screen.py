"""What every agent-tui screen shares: worker failures go to one place, the app."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState

ResultType = TypeVar("ResultType")


def refuse_if_readonly(app: object, what: str) -> bool:
    """The app's read-only guard (`ShellApp.refuse_if_readonly`), for screens and widgets
    that are not an `AgentScreen`; a bare `readonly` flag where an app has no guard
    (test harnesses)."""
    guard = getattr(app, "refuse_if_readonly", None)
    if callable(guard):
        return bool(guard(what))
    return bool(getattr(app, "readonly", False))


class WorkerFailed(Message):
    """A worker ended with an exception it did not handle; the app reports it."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker


class AgentScreen(Screen[ResultType]):
    """Base screen: bindings with ids, worker failures forwarded to the app, and the
    read-only guard and error reporting of the shell (`shell.ShellApp`)."""

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

    def refuse_if_readonly(self, what: str) -> bool:
        """True when read-only mode forbids `what` (e.g. "delete a thread"); the app has
        told the user why. Every mutating action asks this first."""
        return refuse_if_readonly(self.app, what)

    def report_error(self, error: BaseException, *, doing: str | None = None) -> None:
        """Tell the user what went wrong, in the app's one format (error_messages.py)."""
        report = getattr(self.app, "report_error", None)
        if callable(report):
            report(error, doing=doing)
            return
        from agent_tui.error_messages import describe_error

        title, body = describe_error(error, doing)
        self.notify(body, title=title, severity="error", markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # `Worker.StateChanged` does not bubble: without this the app never hears of it.
        if event.state is WorkerState.ERROR:
            self.app.post_message(WorkerFailed(event.worker))
