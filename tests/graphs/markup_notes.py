"""A graph whose one node writes markup-shaped text inside a list of dicts, as a research
agent writes a failed tool call into its notes (issue 30): `[Errno -2]`, tags, an
unbalanced `[`, a backslash before `[`. None of it may be read as markup.

Kept in step with `tests/support/hostile_text.MARKUP_SHAPES` (graphs load without the
tests package).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

TOOL_ERROR = "\nError executing tool: [Errno -2] Name or service not known\n\n Please fix it."
SHAPES = (
    "[link=file:///etc/passwd]x",
    "[Errno -2] x",
    "[bold]x[/]",
    "[/]",
    "[@click=app.quit]x",
    "[ unbalanced",
    "a\\[bold]b",
)


class NotesState(TypedDict, total=False):
    notes: list[dict[str, Any]]
    raw_notes: list[str]


def research(state: NotesState) -> dict[str, Any]:
    notes = [{"content": shape, "type": "tool", shape: [shape]} for shape in SHAPES]
    notes.append({"content": TOOL_ERROR, "type": "tool"})
    return {"notes": notes, "raw_notes": [TOOL_ERROR, *SHAPES]}


builder = StateGraph(NotesState)
builder.add_node("research", research)
builder.add_edge(START, "research")
builder.add_edge("research", END)
graph = builder.compile(name="markup_notes")
