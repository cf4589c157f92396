"""Where datasets are kept: one JSON file per dataset in `<user data>/datasets/`,
written whole or not at all, so a failed import or a crash never loses what was saved."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.datasets.model import Dataset, DatasetError, Example, check_name
from agent_tui.settings.atomic_file import write_text_atomically
from agent_tui.text.escaping import exact_json

SUFFIX = ".dataset.json"


def default_folder() -> Path:
    from agent_tui.settings import paths

    return paths.data_dir() / "datasets"


class DatasetStore:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_folder()

    def _path(self, name: str) -> Path:
        return self.folder / f"{check_name(name)}{SUFFIX}"

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(path.name[: -len(SUFFIX)] for path in self.folder.glob(f"*{SUFFIX}"))

    def exists(self, name: str) -> bool:
        return self._path(name).is_file()

    def load(self, name: str) -> Dataset:
        path = self._path(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Dataset.from_json(data)
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none yet"
            raise DatasetError(f"no dataset {name!r} (datasets: {known})") from None
        except (ValueError, KeyError, TypeError, DatasetError) as error:
            raise DatasetError(f"the dataset file {path} cannot be read: {error}") from None

    def all(self) -> list[Dataset]:
        """Every dataset that can be read (a damaged file is left out; `load` names it)."""
        found = []
        for name in self.names():
            try:
                found.append(self.load(name))
            except DatasetError:
                continue
        return found

    def save(self, dataset: Dataset) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._path(dataset.name)
        write_text_atomically(path, exact_json(dataset.as_json()) + "\n", mode=0o600)
        return path

    def delete(self, name: str) -> None:
        try:
            self._path(name).unlink()
        except FileNotFoundError:
            raise DatasetError(f"no dataset {name!r}") from None

    def add_examples(self, name: str, examples: list[Example], *, create: bool = True) -> int:
        """Add `examples` to dataset `name` (made when `create` and it does not exist);
        the number of new ones (see `Dataset.with_examples`)."""
        if self.exists(name):
            dataset = self.load(name)
        elif create:
            dataset = Dataset(check_name(name))
        else:
            raise DatasetError(f"no dataset {name!r}")
        added = dataset.with_examples(examples)
        self.save(dataset)
        return added
