"""Which stream modes the chat's runs ask for: a modal, remembered for the session.

`updates` (one block per node step) and `messages-tuple` (AI tokens) are on by default;
`values` (the whole state after each step), `custom` (what nodes write with the stream
writer), `debug` (the runtime's own events, shown in the event inspector) and `events`
(LangChain's callbacks: each model and tool call, live, `tui/chat/run_calls.py`; `f5`
in the chat toggles it) can be turned on. The choice lasts until the app exits (`session_modes` / `remember_modes`),
so every thread view opened afterwards streams the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar
from weakref import WeakKeyDictionary

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.selection_list import Selection

from agent_tui.chat.run_request import DEFAULT_STREAM_MODES
from agent_tui.tui.agent_screen import AgentScreen

DEFAULT_MODES = DEFAULT_STREAM_MODES  # what runs stream unless the user adds more
MODES: dict[str, str] = {
    "updates": "one block per node step: what each node wrote",
    "messages-tuple": "AI messages token by token",
    "values": "the whole state after each step",
    "custom": "what nodes write with get_stream_writer()",
    "debug": "the runtime's task and checkpoint events (see the event inspector)",
    "events": "model and tool calls, live (f5; a record per token)",
}

_chosen: WeakKeyDictionary[App[Any], tuple[str, ...]] = WeakKeyDictionary()


def session_modes(app: App[Any]) -> tuple[str, ...]:
    """The stream modes chosen in this app session (the defaults until changed)."""
    return _chosen.get(app, DEFAULT_MODES)


def run_modes(app: App[Any], *, watching_graph: bool = False) -> tuple[str, ...]:
    """The modes a run started now asks for: the session's, and `tasks` while a graph pane
    watches the run (each node's start is streamed, so the running node is lit at once
    rather than at the pane's next read of the thread; `debug` carries the same)."""
    modes = session_modes(app)
    if watching_graph and "tasks" not in modes and "debug" not in modes:
        return (*modes, "tasks")
    return modes


def remember_modes(app: App[Any], modes: tuple[str, ...]) -> None:
    _chosen[app] = tuple(mode for mode in MODES if mode in modes)


class StreamModesScreen(ModalScreen[tuple[str, ...] | None]):
    """Toggle stream modes; answers the chosen modes (enter/ctrl+s) or None (esc)."""

    DEFAULT_CSS = """
    StreamModesScreen { align: center middle; }
    StreamModesScreen > Vertical {
        width: 80; height: auto; border: thick $primary; background: $surface; padding: 0 1;
    }
    StreamModesScreen .modal-title { text-style: bold; margin-bottom: 1; }
    StreamModesScreen .modal-hint { color: $text-muted; margin-top: 1; }
    StreamModesScreen SelectionList { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("ctrl+s,enter", "accept", "Use these", priority=True, id="stream_modes.accept"),
        Binding("escape", "cancel", "Cancel", id="stream_modes.cancel"),
    ]

    def __init__(self, current: tuple[str, ...]) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Stream modes for the chat's runs", classes="modal-title")
            yield SelectionList[str](
                *(
                    Selection(
                        Text.assemble((mode, "bold"), "  ", (help, "dim")),
                        mode,
                        mode in self.current,
                    )
                    for mode, help in MODES.items()
                ),
                id="stream-modes",
            )
            yield Static(
                "space toggles · enter uses them (for this session) · esc cancels",
                classes="modal-hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_accept(self) -> None:
        chosen: list[str] = list(self.query_one(SelectionList).selected)
        if not chosen:
            self.notify("Pick at least one stream mode.", severity="warning", markup=False)
            return
        self.dismiss(tuple(mode for mode in MODES if mode in chosen))

    def action_cancel(self) -> None:
        self.dismiss(None)
