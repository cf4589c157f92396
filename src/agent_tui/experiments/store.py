"""Where experiments are kept: one JSON file each in `<user data>/experiments/`."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.experiments.results import Experiment
from agent_tui.settings.atomic_file import write_text_atomically
from agent_tui.text.escaping import exact_json

SUFFIX = ".experiment.json"


class ExperimentNotFound(LookupError):
    pass


def default_folder() -> Path:
    from agent_tui.settings import paths

    return paths.data_dir() / "experiments"


class ExperimentStore:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_folder()

    def ids(self) -> list[str]:
        """Newest first (ids start with their UTC time)."""
        if not self.folder.is_dir():
            return []
        found = [path.name[: -len(SUFFIX)] for path in self.folder.glob(f"*{SUFFIX}")]
        return sorted(found, reverse=True)

    def save(self, experiment: Experiment) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.folder / f"{experiment.id}{SUFFIX}"
        write_text_atomically(path, exact_json(experiment.as_json()) + "\n", mode=0o600)
        return path

    def load(self, wanted: str) -> Experiment:
        """The experiment whose id is `wanted` or starts with it (when only one does)."""
        ids = self.ids()
        matches = [i for i in ids if i == wanted] or [i for i in ids if i.startswith(wanted)]
        if len(matches) != 1:
            several = f"{len(matches)} experiments start with {wanted!r}" if matches else ""
            raise ExperimentNotFound(several or f"no experiment {wanted!r}")
        path = self.folder / f"{matches[0]}{SUFFIX}"
        try:
            return Experiment.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as error:
            raise ExperimentNotFound(
                f"the experiment file {path} cannot be read: {error}"
            ) from None

    def delete(self, experiment_id: str) -> None:
        path = self.folder / f"{experiment_id}{SUFFIX}"
        try:
            path.unlink()
        except FileNotFoundError:
            raise ExperimentNotFound(f"no experiment {experiment_id!r}") from None

    def all(self) -> list[Experiment]:
        found = []
        for experiment_id in self.ids():
            try:
                found.append(self.load(experiment_id))
            except ExperimentNotFound:
                continue
        # Newest first by the time they started: two ids of one second sort by chance.
        return sorted(found, key=lambda experiment: experiment.created_at, reverse=True)
