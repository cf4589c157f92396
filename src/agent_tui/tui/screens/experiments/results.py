"""One experiment's results (`enter` on `:experiments`): a summary row per assistant (pass
rate, median latency, tokens, model calls, errors), then every example with each
assistant's answer side by side (✓ passed, ✗ failed, · no verdict; a regression in red),
and for the highlighted example its input, reference and every answer whole, with a
diff of each later answer against the first. `y` the experiment as JSON · `esc` back.

Opening it is a hot path (`benchmarks/experiments.py`: 200 examples x 2 within 200 ms):
the rows go into a `QuickCellsTable` at once (no widget per row, each cell one `Text`),
and only the highlighted example's answers are diffed, when it is highlighted.
"""

from __future__ import annotations

import difflib
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static

from agent_tui.experiments.outputs import as_text
from agent_tui.experiments.results import Experiment, Outcome
from agent_tui.text.fit import cut_end
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.quick_cells import QuickCellsTable
from agent_tui.tui.widgets.text import server_line, server_text

CELL = 36  # characters of an answer in the table; the pane below shows it whole
MARKS = {True: ("✓", "green"), False: ("✗", "red"), None: ("·", "dim")}


def rate_text(passed: int, judged: int) -> str:
    return f"{passed}/{judged} {100 * passed / judged:.0f}%" if judged else "—"


def answer_of(outcome: Outcome | None) -> str:
    if outcome is None:
        return "—"
    if outcome.error is not None:
        return f"[{outcome.status}] {outcome.error}"
    return as_text(outcome.output) if outcome.output is not None else "—"


def input_of(inputs: object) -> str:
    if isinstance(inputs, dict) and isinstance(inputs.get("messages"), list) and inputs["messages"]:
        last = inputs["messages"][-1]
        if isinstance(last, dict):
            return str(last.get("content", ""))
    return as_text(inputs)


class ExperimentResultsScreen(AgentScreen[None]):
    AUTO_FOCUS = "#experiment-examples"
    DEFAULT_CSS = """
    ExperimentResultsScreen #experiment-summary { height: auto; padding: 0 1; }
    ExperimentResultsScreen #experiment-examples { height: 1fr; }
    ExperimentResultsScreen #experiment-detail-pane { height: 1fr; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "raw", "JSON", id="experiment.raw"),
        Binding("escape", "back", "Back", id="experiment.back"),
    ]

    def __init__(self, experiment: Experiment) -> None:
        super().__init__()
        self.experiment = experiment
        self.rows = experiment.by_example()
        self.examples = {example["id"]: example for example in experiment.examples}
        self.regressed = {(r.example_id, r.failed_on) for r in experiment.regressions()}
        self.shown: str | None = None  # the example the pane below shows

    @property
    def breadcrumb_title(self) -> str:
        return f"experiments · {self.experiment.id}"

    def compose(self) -> ComposeResult:
        # Everything filled before the first layout: filled once mounted, the table's
        # rows and the example below changed sizes and cost the screen a second layout.
        table = QuickCellsTable(id="experiment-examples", cursor_type="row", zebra_stripes=True)
        self.fill(table)
        first = next(iter(self.rows), None)
        yield Breadcrumb()
        yield Static(self.summary(), id="experiment-summary")
        yield table
        with VerticalScroll(id="experiment-detail-pane"):
            yield Static(self.example_text(first) if first else "", id="experiment-detail")
        yield Footer()

    def summary(self) -> Text:
        experiment = self.experiment
        text = server_line(
            f"dataset {experiment.dataset} · {len(experiment.examples)} examples · "
            f"evaluator {experiment.evaluator}",
            style="bold",
        )
        headers = ["Assistant", "Pass rate", "Median latency", "Tokens in→out", "Calls", "Errors"]
        rows = [
            [
                row.target,
                rate_text(row.passed, row.judged),
                "—" if row.median_latency is None else f"{row.median_latency:.2f}s",
                "—" if row.input_tokens is None else f"{row.input_tokens}→{row.output_tokens}",
                "—" if row.model_calls is None else str(row.model_calls),
                str(row.errors),
            ]
            for row in experiment.summaries()
        ]
        widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
        for index, row in enumerate([headers, *rows]):
            line = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
            text.append("\n")
            text.append_text(server_text(line, style="dim" if index == 0 else ""))
        regressions = len(self.regressed)
        text.append("\n")
        if regressions:
            several = "regressions" if regressions > 1 else "regression"
            text.append(f"{regressions} {several}", style="bold red")
            text.append(" (passed on an earlier assistant, failed on a later one)")
        else:
            text.append("no regressions", style="green")
        return text

    def fill(self, table: QuickCellsTable) -> None:
        table.add_column("Input", key="input")
        table.add_column("Reference", key="reference")
        for target in self.experiment.targets:
            table.add_column(server_line(target.label), key=target.label)
        rows = []
        for example_id, row in self.rows.items():
            example = self.examples.get(example_id, {})
            reference = example.get("reference")
            cells = [
                server_line(cut_end(input_of(example.get("inputs")), CELL)),
                server_line(cut_end("—" if reference is None else as_text(reference), CELL)),
            ]
            for target in self.experiment.targets:
                cells.append(self.cell(example_id, target.label, row.get(target.label)))
            rows.append((example_id, cells))
        table.add_text_rows(rows)

    def cell(self, example_id: str, label: str, outcome: Outcome | None) -> Text:
        # One `Text` styled by spans: a table of hundreds of rows makes hundreds of these.
        passed = outcome.passed if outcome is not None else None
        mark, style = MARKS[passed]
        answer = cut_end(" ".join(clean_text(answer_of(outcome)).split()), CELL)
        text = Text(f"{mark} {answer}")
        text.stylize(style, 0, 1)
        if (example_id, label) in self.regressed:
            text.stylize("bold red", 2)
        return text

    @on(DataTable.RowHighlighted, "#experiment-examples")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None and event.row_key.value != self.shown:
            self.show_example(event.row_key.value)

    def show_example(self, example_id: str) -> None:
        self.query_one("#experiment-detail", Static).update(self.example_text(example_id))

    def example_text(self, example_id: str) -> Text:
        """The example's input, reference, every answer whole and each later answer's
        diff against the first: worked out only for the example shown."""
        self.shown = example_id
        example = self.examples.get(example_id, {})
        row = self.rows.get(example_id, {})
        text = Text()
        text.append("Input  ", style="bold")
        text.append_text(server_text(input_of(example.get("inputs"))))
        reference = example.get("reference")
        text.append("\nReference  ", style="bold")
        text.append_text(server_text("—" if reference is None else as_text(reference)))
        labels = [target.label for target in self.experiment.targets]
        for label in labels:
            outcome = row.get(label)
            mark, style = MARKS[outcome.passed if outcome is not None else None]
            text.append(f"\n{mark} ", style=style)
            text.append_text(server_line(label, style="bold"))
            if outcome is not None and outcome.latency is not None:
                text.append(f"  {outcome.latency:.2f}s", style="dim")
            if outcome is not None and outcome.verdict.comment:
                text.append_text(server_text(f"  {outcome.verdict.comment}", style="dim"))
            text.append("\n")
            text.append_text(server_text(answer_of(outcome)))
        first = answer_of(row.get(labels[0])).splitlines() if labels else []
        for label in labels[1:]:
            later = answer_of(row.get(label)).splitlines()
            if later == first:
                continue
            text.append("\n\n")
            text.append_text(server_line(f"{labels[0]} → {label}", style="bold"))
            for line in difflib.ndiff(first, later):
                if line.startswith("? "):
                    continue
                style = "green" if line[:1] == "+" else "red" if line[:1] == "-" else "dim"
                text.append("\n")
                text.append_text(server_text(line, style=style))
        return text

    def action_raw(self) -> None:
        self.app.push_screen(RawJsonScreen(self.experiment.as_json(), title="experiment"))

    def action_back(self) -> None:
        self.dismiss(None)
