"""Examples to and from JSON Lines, one example a line in LangSmith's shape:
`{"inputs": {...}, "outputs": {...}, "metadata": {...}}` (and `id`, kept when given)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from agent_tui.datasets.model import DatasetError, Example
from agent_tui.text.escaping import exact_json

MAX_PROBLEMS = 10  # lines named in one message; the count says how many more


def read_examples(text: str, source: str) -> list[Example]:
    """Every example of `text`; blank lines are skipped. `DatasetError` naming each bad
    line (`source:3: ...`) when any is bad: then none is taken."""
    examples: list[Example] = []
    problems: list[str] = []
    ids: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            example = Example.from_json(json.loads(line))
        except ValueError as error:  # JSONDecodeError too
            reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            where = f", column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
            problems.append(f"{source}:{number}: not JSON ({reason}{where})")
            continue
        except DatasetError as error:
            problems.append(f"{source}:{number}: {error}")
            continue
        if example.id in ids:
            problems.append(
                f"{source}:{number}: id {example.id!r} is also on line {ids[example.id]}"
            )
            continue
        ids[example.id] = number
        examples.append(example)
    if problems:
        more = len(problems) - MAX_PROBLEMS
        shown = problems[:MAX_PROBLEMS] + ([f"… and {more} more"] if more > 0 else [])
        several = "lines are" if len(problems) > 1 else "line is"
        raise DatasetError(
            f"{len(problems)} {several} not an example (nothing was imported):\n"
            + "\n".join(f"  {problem}" for problem in shown)
        )
    if not examples:
        raise DatasetError(f"{source} holds no examples")
    return examples


def write_examples(examples: Iterable[Example]) -> str:
    return "".join(exact_json(example.as_json(), indent=None) + "\n" for example in examples)
