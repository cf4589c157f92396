"""The new-thread form: empty, with metadata, or built from supersteps given as JSON.

The form sends the request itself and stays open on any error, with everything typed
still there and the reason under it: bad JSON (line and column), a superstep of the
wrong shape, or the server's own message (an unknown node is a 400; a thread whose
state could not be built comes back as a 201 with a `detail`, raised as
`PartialFailure`, and the empty thread it made is deleted again). Dismisses with the new `Thread`, or None on cancel.
"""

from __future__ import annotations

import uuid
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from agent_tui.client import AgentServerClient, ApiError, NotFound, PartialFailure
from agent_tui.client.error_text import describe_error
from agent_tui.client.models import Thread
from agent_tui.threads.query import QueryError, ThreadDraft
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input, TextArea

SUPERSTEPS_HINT = (
    'Supersteps (optional, JSON): [{"updates": [{"values": {...}, "as_node": "node"}]}, ...]'
)


class ThreadCreateScreen(SavingForm[ThreadDraft, Thread]):
    DEFAULT_CSS = """
    ThreadCreateScreen { align: center middle; }
    ThreadCreateScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    ThreadCreateScreen .title { text-style: bold; }
    ThreadCreateScreen Label { margin-top: 1; }
    ThreadCreateScreen TextArea { height: 12; }
    ThreadCreateScreen #create-error { color: $text-error; margin-top: 1; display: none; }
    ThreadCreateScreen .buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ThreadCreateScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="thread_create.cancel"),
        Binding("ctrl+s", "save", "Create", id="thread_create.create"),
    ]
    SAVE_GROUP = "thread-create"
    ERROR_LINE = "#create-error"
    doing = "create the thread"

    def __init__(self, client: AgentServerClient, *, metadata: str = "") -> None:
        super().__init__()
        self.client = client
        self.initial_metadata = metadata

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("New thread", classes="title")
            yield Label("Metadata: key=value …  or a JSON object (graph_id=… for supersteps)")
            yield Input(
                self.initial_metadata, placeholder="graph_id=chat user=ann", id="create-metadata"
            )
            yield Label(SUPERSTEPS_HINT)
            yield TextArea(id="create-supersteps", soft_wrap=True, show_line_numbers=True)
            yield Static(id="create-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Create (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#create-metadata", Input).focus()

    @property
    def metadata_text(self) -> str:
        return self.query_one("#create-metadata", Input).value

    @property
    def supersteps_text(self) -> str:
        return self.query_one("#create-supersteps", TextArea).text

    @on(Input.Submitted)
    def _enter_saves(self) -> None:
        self.action_save()

    def read_form(self) -> ThreadDraft | None:
        try:
            return ThreadDraft.from_input(
                metadata=self.metadata_text, supersteps=self.supersteps_text
            )
        except QueryError as error:
            self.show_error(str(error))
            return None

    async def send(self, draft: ThreadDraft) -> Thread:
        kwargs = draft.kwargs()
        if kwargs.get("supersteps"):
            # Our own id: when the server creates the thread but cannot build its state it
            # answers 201 with only a `detail`, and the empty thread must be found to go.
            kwargs["thread_id"] = str(uuid.uuid4())
        try:
            return await self.client.threads.create(**kwargs)
        except PartialFailure as error:
            title, body = describe_error(error, "build the thread's state")
            raise NotSaved(
                f"{title}\n{body}\n{await self._remove_empty(kwargs['thread_id'])}"
            ) from None

    async def _remove_empty(self, thread_id: str) -> str:
        """Delete the empty thread a failed supersteps create left; say what happened."""
        try:
            await self.client.threads.delete(thread_id)
        except NotFound:
            return "No thread was created."
        except ApiError:
            return f"The server created an empty thread {thread_id}; it could not be removed."
        return "The empty thread the server had created was removed; nothing was kept."

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
