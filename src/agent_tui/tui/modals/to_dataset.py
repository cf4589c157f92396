"""A turn of a thread as an example of a dataset (made if new): its human message(s) as
the input and, unless unticked, the answer that ended the turn as the reference
(`datasets/from_thread.py`).

Opened by `D` on the Threads screen (the thread's last turn) and by `D` on a chat message
(that message's turn). The form lists the thread's turns as the server holds them now,
the wanted one chosen; any other may be picked. Dismisses with the example added, or
None on cancel; what went wrong (no such turn, no answer, a bad name, a server error)
stays in the form with everything chosen and typed.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Static

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.error_text import describe_error
from agent_tui.datasets.from_thread import (
    MessageRef,
    example_from_thread,
    thread_messages,
    turn_of_message,
    turns_of,
)
from agent_tui.datasets.model import DatasetError, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.text.fit import cut_end
from agent_tui.text.message_text import answer_text
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input, Select
from agent_tui.tui.widgets.labelled_field import LabelledField, show_field_problems
from agent_tui.tui.widgets.text import server_line, server_text

TURN_PREVIEW = 72  # characters of a turn in the list


def turn_label(number: int, asked: list[dict[str, Any]], answer: dict[str, Any] | None) -> str:
    """`3. what was asked → what was answered`, on one line."""
    question = " / ".join(" ".join(answer_text(m).split()) for m in asked)
    said = " ".join(answer_text(answer).split()) if answer is not None else "(no answer yet)"
    return cut_end(f"{number}. {question} → {said}", TURN_PREVIEW)


class AddToDatasetScreen(SavingForm[tuple[str, int, bool], Example]):
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
        self,
        client: AgentServerClient,
        thread_id: str,
        *,
        message: MessageRef | None = None,
        datasets: DatasetStore | None = None,
    ) -> None:
        """`message`: the turn that holds this message is chosen; None: the last."""
        super().__init__()
        self.client = client
        self.thread_id = thread_id
        self.message = message
        self.datasets = datasets or DatasetStore()
        self.turn_problem: str | None = None  # why the thread's turns cannot be listed

    def compose(self) -> ComposeResult:
        names = self.datasets.names()
        with Vertical():
            which = "a turn" if self.message else "the last turn"
            yield Static(server_text(f"Add {which} of thread {self.thread_id}"), classes="title")
            yield LabelledField(
                "Turn (its input, and its answer as the reference)",
                Select[int]([], prompt="loading the thread's turns…", id="to-dataset-turn"),
                name="turn",
            )
            yield LabelledField(
                server_text(f"Dataset (datasets: {', '.join(names) or 'none yet'})"),
                Input(names[-1] if names else "", id="to-dataset-name"),
                name="name",
            )
            yield Checkbox("Keep the answer as the reference", True, id="to-dataset-reference")
            yield Static(id="to-dataset-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Add (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#to-dataset-name", Input).focus()
        self._load_turns()

    @work(exclusive=True, group="to-dataset-turns", exit_on_error=False)
    async def _load_turns(self) -> None:
        select: Select[int] = self.query_one("#to-dataset-turn", Select)
        try:
            messages = await thread_messages(self.client, self.thread_id)
        except ApiError as error:
            title, body = describe_error(error, "read the thread")
            self._no_turns(f"{title}\n{body}".strip())
            return
        except DatasetError as error:
            self._no_turns(str(error))
            return
        turns = turns_of(messages)
        if not turns:
            self._no_turns("the thread has no human message to make an example of")
            return
        select.set_options(
            (server_line(turn_label(number, asked, answer)), number - 1)
            for number, (asked, answer) in enumerate(turns, start=1)
        )
        wanted = turn_of_message(messages, self.message) if self.message else None
        select.value = wanted if wanted is not None else len(turns) - 1

    def _no_turns(self, why: str) -> None:
        self.query_one("#to-dataset-turn", Select).prompt = "no turns"
        self.turn_problem = why
        self.show_problems({})

    def show_problems(self, problems: dict[str, str]) -> None:
        known = {"turn": self.turn_problem} if self.turn_problem else {}
        show_field_problems(self, known | problems)

    def focus_field(self, field: str) -> None:
        super().focus_field(f"to-dataset-{field}")

    def read_form(self) -> tuple[str, int, bool] | None:
        name = self.query_one("#to-dataset-name", Input).value.strip()
        if not name:
            self.mark_refused({"name": "name the dataset"})
            self.show_error("name the dataset")
            return None
        chosen = self.query_one("#to-dataset-turn", Select).value
        if not isinstance(chosen, int) and self.message is not None and not self.turn_problem:
            # Not the last turn by default: the message's own is on its way.
            self.show_error("the thread's turns are still loading: try again in a moment")
            return None
        turn = chosen if isinstance(chosen, int) else -1
        return name, turn, self.query_one("#to-dataset-reference", Checkbox).value

    async def send(self, body: tuple[str, int, bool]) -> Example:
        name, turn, with_answer = body
        try:
            example = await example_from_thread(
                self.client, self.thread_id, turn=turn, with_answer=with_answer
            )
            await asyncio.to_thread(self.datasets.add_examples, name, [example])
        except (DatasetError, OSError) as error:
            raise NotSaved(str(error)) from None
        return example

    @on(Input.Submitted)
    def _enter_adds(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
