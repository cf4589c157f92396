"""`D` on the Threads screen: the selected thread's last turn as an example of a dataset
(made if new) — its human message(s) as the input and, unless unticked, the answer that
ended the turn as the reference (`datasets/from_thread.py`). Dismisses with the example
added, or None on cancel; what went wrong (no such turn, a bad name) stays in the form."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Label, Static

from agent_tui.client import AgentServerClient
from agent_tui.datasets.from_thread import example_from_thread
from agent_tui.datasets.model import DatasetError, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.text import server_text


class AddToDatasetScreen(SavingForm[tuple[str, bool], Example]):
    DEFAULT_CSS = """
    AddToDatasetScreen { align: center middle; }
    AddToDatasetScreen > Vertical {
        width: 80%; max-width: 90; height: auto;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    AddToDatasetScreen .title { text-style: bold; }
    AddToDatasetScreen #to-dataset-error { color: $text-error; display: none; }
    AddToDatasetScreen .buttons { height: auto; align-horizontal: right; }
    AddToDatasetScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="to_dataset.cancel"),
        Binding("ctrl+s", "save", "Add", id="to_dataset.add"),
    ]
    SAVE_GROUP = "to-dataset-add"
    ERROR_LINE = "#to-dataset-error"
    doing = "add the turn to the dataset"

    def __init__(
        self, client: AgentServerClient, thread_id: str, datasets: DatasetStore | None = None
    ) -> None:
        super().__init__()
        self.client = client
        self.thread_id = thread_id
        self.datasets = datasets or DatasetStore()

    def compose(self) -> ComposeResult:
        names = self.datasets.names()
        with Vertical():
            yield Static(server_text(f"Add thread {self.thread_id}'s last turn"), classes="title")
            yield Label(server_text(f"Dataset (datasets: {', '.join(names) or 'none yet'})"))
            yield Input(names[-1] if names else "", id="to-dataset-name")
            yield Checkbox("Keep the answer as the reference", True, id="to-dataset-reference")
            yield Static(id="to-dataset-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Add (ctrl+s)", id="save", variant="primary")

    def read_form(self) -> tuple[str, bool] | None:
        name = self.query_one("#to-dataset-name", Input).value.strip()
        if not name:
            self.show_error("name the dataset")
            return None
        return name, self.query_one("#to-dataset-reference", Checkbox).value

    async def send(self, body: tuple[str, bool]) -> Example:
        name, with_answer = body
        try:
            example = await example_from_thread(
                self.client, self.thread_id, with_answer=with_answer
            )
            await asyncio.to_thread(self.datasets.add_examples, name, [example])
        except DatasetError as error:
            raise NotSaved(str(error)) from None
        return example

    @on(Input.Submitted)
    def _enter_adds(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
