"""What every agent-tui screen shares: the app as its contract (`agent_app`), and worker
failures sent to one place, the app."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from agent_tui.tui.app_contract import AgentApp, agent_app
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

ResultType = TypeVar("ResultType")


def refuse_if_readonly(app: object, what: str) -> bool:
    """The app's read-only guard (`ShellApp.refuse_if_readonly`), for screens and widgets
    that are not an `AgentScreen`."""
    return agent_app(app).refuse_if_readonly(what)


class AgentScreen(ReportsWorkerFailures, Screen[ResultType]):
    """Base screen: bindings with ids, worker failures forwarded to the app, and the
    read-only guard and error reporting of the shell (`shell.ShellApp`)."""

    # What the key help (`?`) calls a screen whose breadcrumb names no title of its own.
    HELP_TITLE: ClassVar[str] = ""
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

    @property
    def agent_app(self) -> AgentApp:
        """The app, typed as what screens may ask of it (`app_contract.AgentApp`)."""
        return agent_app(self.app)

    def refuse_if_readonly(self, what: str) -> bool:
        """True when read-only mode forbids `what` (e.g. "delete a thread"); the app has
        told the user why. Every mutating action asks this first."""
        return self.agent_app.refuse_if_readonly(what)

    def report_error(self, error: BaseException, *, doing: str | None = None) -> None:
        """Tell the user what went wrong, in the app's one format (client/error_text.py)."""
        self.agent_app.report_error(error, doing=doing)
