"""A graph whose own names try to take over a terminal, for the UI's hostile-text tests.

Its one node and its context schema's property (with its title, description and
choices) are named with `tests/support/hostile_text.EVERYTHING`-like text: escape
sequences, C1 controls, NUL, bidi overrides and markup, between visible markers.
Everything a form, picker or modal shows of a graph comes from names like these.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langgraph.graph import END, START, StateGraph
from pydantic import Field
from typing_extensions import TypedDict

# Kept in step with tests/support/hostile_text.py (graphs load without the tests package).
TRICKS = (
    "\x1b]0;pwned\x07\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\x1b[31mred\x1b[0m"
    "\x9b31m\x9d0;pwned\x9c\x00\x07\u202eevil\u202c\u2066x\u2069ad\u200bmin"
    "[@click=app.quit]click[/][bold]b[/bold]"
)
NAME = "hostile" + TRICKS + "hostile"
NODE = "node-" + NAME

# The functional form: a key that is no identifier (and no literal, for mypy).
HostileContext = TypedDict(
    "HostileContext",
    {
        NAME: Annotated[str, Field(title=f"title-{NAME}", description=f"about-{NAME}")],  # type: ignore[misc]
        "pick": Literal["one-" + NAME, "two"],
    },
    total=False,
)


class HostileState(TypedDict, total=False):
    note: str


def step(state: HostileState) -> dict[str, Any]:
    return {"note": NAME}


builder = StateGraph(HostileState, context_schema=HostileContext)
builder.add_node(NODE, step)
builder.add_edge(START, NODE)
builder.add_edge(NODE, END)
graph = builder.compile()
