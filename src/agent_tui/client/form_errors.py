"""A 422 sorted onto a form's fields (headless): one way for every form to say it.

Each form knows which of its fields a `loc` points at (`field_of`); this module does the
rest, the same for all: several messages for one field are joined, errors no field can
show are listed at the top, and the top line counts the fields the server refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from agent_tui.client.error_text import refused_fields
from agent_tui.client.errors import FieldError

Loc = Sequence[str | int]


def body_loc(loc: Loc) -> list[str]:
    """`loc` without the leading `body` a FastAPI 422 puts first, as text."""
    return [str(part) for part in loc if part != "body"]


@dataclass(slots=True)
class FieldErrors:
    """`problems`: field id → what the server said; `elsewhere`: `• where: what` lines."""

    problems: dict[str, str] = field(default_factory=dict)
    elsewhere: list[str] = field(default_factory=list)

    def summary(self, doing: str) -> str:
        """`Could not create the X:` / `The server refused 2 fields, marked above.` / the rest."""
        lines = [f"Could not {doing}:"]
        if self.problems:
            lines.append(refused_fields(len(self.problems)))
        return "\n".join(lines + self.elsewhere)


def sort_field_errors(
    errors: Iterable[FieldError], field_of: Callable[[Loc], str | None]
) -> FieldErrors:
    """Each error under the field `field_of(loc)` names, or in `elsewhere` when None."""
    sorted_errors = FieldErrors()
    problems = sorted_errors.problems
    for error in errors:
        where = field_of(error.loc)
        if where is None:
            sorted_errors.elsewhere.append(f"• {error}")
        else:
            problems[where] = f"{problems[where]}; {error.msg}" if where in problems else error.msg
    return sorted_errors
