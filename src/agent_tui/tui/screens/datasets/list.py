"""The Datasets screen (`:datasets`): the datasets kept on this machine — name, examples,
how many have a reference, when changed. `enter` lists a dataset's examples (input,
reference, metadata; `enter` there shows one whole) · `n` a new dataset with its first
example, or (in a dataset) one more example, typed in (`example_form.py`) · `x`
exports a dataset as JSON Lines in LangSmith's example shape (`modals/export_file.py`)
· `ctrl+d` deletes a dataset (asks first). `agent-tui datasets import` and `add`, and `D` on
`:threads`, fill them too. In a read-only session the app refuses these changes as it
refuses the others (the headless `datasets` commands, which change only this machine, do
not)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType

from agent_tui.chat.item_text import compact_json
from agent_tui.datasets.jsonl import write_examples
from agent_tui.datasets.model import Dataset, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.text.time_text import utc_minutes
from agent_tui.tui.modals.export_file import export_to_file
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.datasets.example_form import ExampleFormScreen
from agent_tui.tui.widgets.resource_table import Column
from agent_tui.tui.widgets.text import server_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

PREVIEW = 80


class DatasetsScreen(ResourceScreen[Dataset]):
    RESOURCE = "dataset"
    RESOURCES = "datasets"
    VERBS = frozenset({"new", "delete"})
    EMPTY_HINT: ClassVar[str] = "none yet: n makes one (or agent-tui datasets import)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "export", "Export", id="datasets.export"),
    ]

    def __init__(self, store: DatasetStore | None = None) -> None:
        super().__init__()
        self.store = store or DatasetStore()

    def columns(self) -> Sequence[Column[Dataset]]:
        return [
            Column("name", "Dataset", lambda d: server_line(d.name), flex=1, width=16),
            Column("examples", "Examples", lambda d: str(len(d.examples)), width=8),
            Column("references", "With reference", lambda d: str(d.with_references), width=14),
            Column("updated", "Updated (UTC)", lambda d: utc_minutes(d.updated_at), width=16),
        ]

    def item_id(self, item: Dataset) -> str:
        return item.name

    def describe(self, item: Dataset) -> str:
        return f"dataset {item.name}"

    def raw_json(self, item: Dataset) -> Any:
        return item.as_json()

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Dataset]:
        found = await asyncio.to_thread(self.store.all)
        return found[offset : offset + limit]

    def open_item(self, item: Dataset) -> None:
        self.app.push_screen(ExamplesScreen(item, self.store), lambda _: self.reload())

    def new_item(self) -> None:
        self.app.push_screen(ExampleFormScreen(self.store), self._made)

    def _made(self, example: Example | None) -> None:
        if example is not None:
            self.reload()

    async def delete_item(self, item: Dataset) -> None:
        await asyncio.to_thread(self.store.delete, item.name)

    def action_export(self) -> None:
        """The selected dataset as JSON Lines (allowed read-only: it writes only here)."""
        item = self._selected()
        if item is None:
            return

        export_to_file(
            self,
            f"Export dataset {item.name} as JSON Lines (inputs, outputs, metadata)",
            f"{item.name}.jsonl",
            lambda: write_examples(item.examples),
            said=lambda path: (
                f"Wrote {len(item.examples)} examples of dataset {item.name} to {path}"
            ),
            notice="Dataset exported",
        )

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()
        yield PaletteCommand(
            "Export dataset…", "The selected dataset as JSON Lines", self.action_export
        )


class ExamplesScreen(ResourceScreen[Example]):
    """A dataset's examples; `enter` (or `y`) shows one whole as JSON."""

    RESOURCE = "example"
    RESOURCES = "examples"
    VERBS = frozenset({"new"})

    def __init__(self, dataset: Dataset, store: DatasetStore | None = None) -> None:
        super().__init__()
        self.dataset = dataset
        self.store = store or DatasetStore()

    @property
    def breadcrumb_title(self) -> str:
        return f"datasets · {self.dataset.name}"

    def columns(self) -> Sequence[Column[Example]]:
        return [
            Column("inputs", "Inputs", lambda e: compact_json(e.inputs, PREVIEW), flex=2, width=20),
            Column("reference", "Reference", self._reference, flex=1, width=16),
            Column("metadata", "Metadata", lambda e: compact_json(e.metadata, PREVIEW), width=24),
        ]

    def _reference(self, example: Example) -> str:
        return "—" if example.outputs is None else compact_json(example.outputs, PREVIEW)

    def item_id(self, item: Example) -> str:
        return item.id

    def raw_json(self, item: Example) -> Any:
        return item.as_json()

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Example]:
        return self.dataset.examples[offset : offset + limit]

    def open_item(self, item: Example) -> None:
        self.show_raw(item)

    def new_item(self) -> None:
        self.app.push_screen(ExampleFormScreen(self.store, self.dataset.name), self._added)

    def _added(self, example: Example | None) -> None:
        if example is not None:
            self.dataset = self.store.load(self.dataset.name)
            self.reload()


def datasets_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The route's factory: `:datasets`."""
    return DatasetsScreen()
