"""A dataset and its examples, as kept and as exported (LangSmith's example shape:
`inputs`, `outputs`, `metadata`)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_tui.text.time_text import now_utc

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class DatasetError(Exception):
    """A dataset or a file of examples that cannot be used; the message says why."""


def check_name(name: str) -> str:
    """`name` if it can name a dataset (and its file): letters, digits, `.`, `_`, `-`."""
    if not _NAME.fullmatch(name):
        raise DatasetError(
            f"{name!r} cannot name a dataset: use up to 100 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit"
        )
    return name


@dataclass(slots=True)
class Example:
    """One example: what the graph gets (`inputs`), what it should answer (`outputs`,
    None when no reference was given) and anything else (`metadata`)."""

    inputs: dict[str, Any]
    outputs: dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(cls, data: Any) -> Example:
        """An example from LangSmith's shape; `DatasetError` saying what is wrong."""
        if not isinstance(data, dict):
            raise DatasetError("an example is a JSON object with `inputs`")
        inputs = data.get("inputs")
        if not isinstance(inputs, dict):
            raise DatasetError("`inputs` must be a JSON object")
        outputs = data.get("outputs")
        if outputs is not None and not isinstance(outputs, dict):
            raise DatasetError("`outputs` must be a JSON object (or null)")
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise DatasetError("`metadata` must be a JSON object")
        unknown = sorted(set(data) - {"id", "inputs", "outputs", "metadata"})
        if unknown:
            raise DatasetError(f"unknown key {', '.join(map(repr, unknown))}")
        given = data.get("id")
        if given is not None and (not isinstance(given, str) or not given.strip()):
            raise DatasetError("`id` must be a non-empty string")
        example = cls(inputs, outputs or None, metadata)
        if given:
            example.id = given
        return example


@dataclass(slots=True)
class Dataset:
    name: str
    examples: list[Example] = field(default_factory=list)
    description: str = ""
    created_at: datetime = field(default_factory=now_utc)
    updated_at: datetime = field(default_factory=now_utc)

    def with_examples(self, examples: list[Example]) -> int:
        """Add `examples`; one whose id the dataset has replaces it (a file imported again
        changes nothing). The number of new examples."""
        index = {example.id: position for position, example in enumerate(self.examples)}
        added = 0
        for example in examples:
            if example.id in index:
                self.examples[index[example.id]] = example
            else:
                index[example.id] = len(self.examples)
                self.examples.append(example)
                added += 1
        self.updated_at = now_utc()
        return added

    @property
    def with_references(self) -> int:
        return sum(example.outputs is not None for example in self.examples)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "examples": [example.as_json() for example in self.examples],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Dataset:
        return cls(
            name=check_name(str(data["name"])),
            examples=[Example.from_json(example) for example in data.get("examples", [])],
            description=str(data.get("description") or ""),
            created_at=datetime.fromisoformat(data["created_at"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
        )
