"""`n` on the Experiments screen: what to run — a dataset, the assistants or versions to
compare (`bot@1, bot@2`: ids, graph names or assistant names, `@VERSION` optional), the
evaluator and how many runs at a time. Everything is checked before anything runs (the
dataset is there, the evaluator parses, each assistant and version exists on the
server); the reason shows under its field and everything typed stays. Dismisses with
the `ExperimentPlan` to run, or None on cancel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from agent_tui.assistants.lookup import NoSuchAssistant
from agent_tui.client import AgentServerClient
from agent_tui.datasets.model import Dataset, DatasetError
from agent_tui.datasets.store import DatasetStore
from agent_tui.experiments.evaluators import Evaluator, EvaluatorError, evaluator_of
from agent_tui.experiments.targets import Target, resolve_targets
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.labelled_field import LabelledField, show_field_problems
from agent_tui.tui.widgets.text import server_text


@dataclass(frozen=True, slots=True)
class ExperimentDraft:
    dataset: Dataset
    assistants: list[str]
    evaluator: Evaluator
    concurrency: int


@dataclass(frozen=True, slots=True)
class ExperimentPlan:
    dataset: Dataset
    targets: list[Target]
    evaluator: Evaluator
    concurrency: int


class ExperimentFormScreen(SavingForm[ExperimentDraft, ExperimentPlan]):
    DEFAULT_CSS = """
    ExperimentFormScreen { align: center middle; }
    ExperimentFormScreen > Vertical {
        width: 90%; max-width: 100; height: auto;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ExperimentFormScreen .title { text-style: bold; }
    ExperimentFormScreen #experiment-error { color: $text-error; display: none; }
    ExperimentFormScreen .buttons { height: auto; align-horizontal: right; }
    ExperimentFormScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="experiment_form.cancel"),
        Binding("ctrl+s", "save", "Run", id="experiment_form.run"),
    ]
    SAVE_GROUP = "experiment-form-check"
    ERROR_LINE = "#experiment-error"
    doing = "start the experiment"

    def __init__(self, client: AgentServerClient, datasets: DatasetStore) -> None:
        super().__init__()
        self.client = client
        self.datasets = datasets

    def compose(self) -> ComposeResult:
        names = self.datasets.names()
        with Vertical():
            yield Static("New experiment", classes="title")
            known = ", ".join(names) or "none yet: agent-tui datasets import"
            yield LabelledField(
                server_text(f"Dataset ({known})"),
                Input(names[0] if len(names) == 1 else "", id="experiment-dataset"),
                name="dataset",
            )
            yield LabelledField(
                "Assistants to compare, earlier first (ASSISTANT or ASSISTANT@VERSION)",
                Input(placeholder="bot@1, bot@2", id="experiment-assistants"),
                name="assistants",
            )
            yield LabelledField(
                "Evaluator: exact, contains, regex:PATTERN, json:PATH, module:function",
                Input("exact", id="experiment-evaluator"),
                name="evaluator",
            )
            yield LabelledField(
                "Runs at a time", Input("4", id="experiment-concurrency"), name="concurrency"
            )
            yield Static(id="experiment-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Run (ctrl+s)", id="save", variant="primary")

    def _text(self, name: str) -> str:
        return self.query_one(f"#experiment-{name}", Input).value.strip()

    def show_problems(self, problems: dict[str, str]) -> None:
        show_field_problems(self, problems)

    def focus_field(self, field: str) -> None:
        super().focus_field(f"experiment-{field}")

    def read_form(self) -> ExperimentDraft | None:
        problems: dict[str, str] = {}
        dataset: Dataset | None = None
        evaluator: Evaluator | None = None
        try:
            dataset = self.datasets.load(self._text("dataset"))
            if not dataset.examples:
                problems["dataset"] = f"dataset {dataset.name} has no examples"
        except DatasetError as error:
            problems["dataset"] = str(error)
        assistants = [spec.strip() for spec in self._text("assistants").split(",") if spec.strip()]
        if not assistants:
            problems["assistants"] = "name at least one assistant"
        try:
            evaluator = evaluator_of(self._text("evaluator"))
        except EvaluatorError as error:
            problems["evaluator"] = str(error)
        concurrency = self._text("concurrency")
        if not concurrency.isdigit() or int(concurrency) < 1:
            problems["concurrency"] = "a number, 1 or more"
        self.show_problems(problems)
        if problems or dataset is None or evaluator is None:
            self.mark_refused(problems)
            return None
        return ExperimentDraft(dataset, assistants, evaluator, int(concurrency))

    async def send(self, body: ExperimentDraft) -> ExperimentPlan:
        try:
            targets = await resolve_targets(self.client, body.assistants)
        except (NoSuchAssistant, ValueError) as error:
            raise NotSaved(str(error), {"assistants": str(error)}) from None
        return ExperimentPlan(body.dataset, targets, body.evaluator, body.concurrency)

    @on(Input.Submitted)
    def _enter_runs(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
