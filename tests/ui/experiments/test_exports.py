"""`x` on `:datasets` writes the selected dataset as JSON Lines in LangSmith's example shape,
and on `:experiments` the selected experiment as JSON, to a path the user confirms (by
default a new file in the current folder) and says where. A file already there is kept
unless "Replace" is ticked; a folder or a path the system refuses says why under the
path, keeps the path as typed and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox

from agent_tui.datasets.jsonl import read_examples
from agent_tui.datasets.model import Dataset, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.experiments.evaluators import Verdict
from agent_tui.experiments.results import Experiment, Outcome
from agent_tui.experiments.store import ExperimentStore
from agent_tui.experiments.targets import Target
from agent_tui.tui.modals.export_file import ExportFileScreen
from agent_tui.tui.screens.datasets.list import DatasetsScreen
from agent_tui.tui.screens.experiments.list import ExperimentsScreen
from agent_tui.tui.widgets.inert import Input
from agent_tui.tui.widgets.labelled_field import LabelledField
from tests.support.screen import screen_text, toast_saying
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

SIZE = (150, 40)


def cities() -> Dataset:
    return Dataset(
        "cities",
        [
            Example({"messages": [{"role": "user", "content": "hello Oslo"}]},
                    {"answer": "HELLO OSLO"}, {"kind": "upper"}),
            Example({"question": "no reference"}),
        ],
    )  # fmt: skip


def an_experiment() -> Experiment:
    target = Target("bot@1", "bot v1", "a1", "echo", 1, {"mode": "upper"}, None)
    example = {"id": "e1", "inputs": {"q": "hello"}, "reference": {"answer": "HELLO"}}
    outcome = Outcome("e1", "bot v1", "success", "HELLO", latency=0.2, verdict=Verdict(True))
    return Experiment("20250102-030405-abcd", "cities", "exact", [target], [example], [outcome])


async def export_form(pilot: Pilot[None], app: ShellHarness, wait_for: WaitFor) -> ExportFileScreen:
    await pilot.press("x")
    await wait_for(pilot, lambda: isinstance(app.screen, ExportFileScreen), what="the form")
    form = app.screen
    assert isinstance(form, ExportFileScreen)
    return form


def path_field(form: ExportFileScreen) -> Input:
    return form.query_one("#export-path", Input)


def problem(form: ExportFileScreen) -> str | None:
    """What the form says under the path (the screen wraps a long one)."""
    return form.query_one(LabelledField).problem


async def test_x_exports_a_dataset_as_jsonl(
    tmp_path: Path, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    store = DatasetStore(tmp_path / "datasets")
    store.save(cities())
    screen = DatasetsScreen(store)
    app = ShellHarness(screen)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the dataset")
        form = await export_form(pilot, app, wait_for)
        wanted = here / "cities.jsonl"
        assert path_field(form).value == str(wanted)  # in the current folder, shown whole
        await pilot.press("ctrl+s")
        said = await toast_saying(pilot, "Wrote 2 examples")
        assert f"Wrote 2 examples of dataset cities to {wanted}" in said
        lines = [json.loads(line) for line in wanted.read_text().splitlines()]
        assert [set(line) for line in lines] == [{"id", "inputs", "outputs", "metadata"}] * 2
        assert lines[0]["outputs"] == {"answer": "HELLO OSLO"}
        assert lines[1]["outputs"] is None
        back = read_examples(wanted.read_text(), "cities.jsonl")
        assert [e.as_json() for e in back] == [e.as_json() for e in store.load("cities").examples]

        # Again to the same file: kept unless "Replace" is ticked.
        wanted.write_text("mine\n")
        form = await export_form(pilot, app, wait_for)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: problem(form) is not None, what="why not")
        assert problem(form) == (
            f"{wanted} already exists: tick “Replace” to write over it, or name another file"
        )
        # Said on screen (painted a moment after the form knows it; a long path wraps
        # the line, so its words are looked for one by one).
        await wait_for(
            pilot,
            lambda: (
                all(w in screen_text(app) for w in ("already", "exists:", "“Replace”"))
                and "Nothing was written." in screen_text(app)
            ),
            what="the refusal on screen",
        )
        assert wanted.read_text() == "mine\n" and app.screen is form

        # A folder, then a file under a file: said under the path, the path kept as typed.
        path_field(form).value = str(here)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "is a folder: name a file in it" in (problem(form) or ""))
        await wait_for(pilot, lambda: "is a folder" in screen_text(app), what="on screen")
        under_a_file = f"{wanted}/inside.jsonl"
        path_field(form).value = under_a_file
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: problem(form) == f"{wanted} is a file, not a folder")
        await wait_for(
            pilot,
            lambda: all(w in screen_text(app) for w in ("file,", "not", "folder")),
            what="on screen (the long path wraps the line)",
        )
        assert path_field(form).value == under_a_file and app.screen is form
        assert wanted.read_text() == "mine\n"

        path_field(form).value = str(wanted)
        form.query_one("#export-replace", Checkbox).value = True
        await pilot.press("ctrl+s")
        await toast_saying(pilot, f"to {wanted}")
        assert len(wanted.read_text().splitlines()) == 2


async def test_x_exports_an_experiment_as_json(
    tmp_path: Path, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    experiment = an_experiment()
    store = ExperimentStore(tmp_path / "experiments")
    store.save(experiment)
    screen = ExperimentsScreen(store=store)
    app = ShellHarness(screen)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the experiment")
        form = await export_form(pilot, app, wait_for)
        assert path_field(form).value == str(tmp_path / f"experiment-{experiment.id}.json")
        path_field(form).value = "~/exports/first.json"  # a folder made on the way
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        await pilot.press("ctrl+s")
        written = tmp_path / "home" / "exports" / "first.json"
        said = await toast_saying(pilot, "Wrote experiment")
        assert f"Wrote experiment {experiment.id} to {written}" in said
        data = json.loads(written.read_text())
        assert data == experiment.as_json()
        assert data["summary"][0]["passed"] == 1 and data["outcomes"][0]["output"] == "HELLO"
        assert Experiment.from_json(data).as_json() == data
