"""A graph whose own names try to take over a terminal, for the UI's hostile-text tests.

Its one node and its context schema's property (with its title, description and
choices) are named with `tests/support/hostile_text.EVERYTHING`-like text: escape
sequences, C1 controls, NUL, bidi overrides, markup and markup-shaped text, between
visible markers. Everything a form, picker or modal shows of a graph comes from names
like these. The node writes such text everywhere an update holds text: a string, lists
of dicts and their keys, and a tool call's name, arguments and result.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from pydantic import Field
from typing_extensions import TypedDict

# Kept in step with tests/support/hostile_text.py (graphs load without the tests package).
TRICKS = (
    "\x1b]0;pwned\x07\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\x1b[31mred\x1b[0m"
    "\x9b31m\x9d0;pwned\x9c\x00\x07\u202eevil\u202c\u2066x\u2069ad\u200bmin"
    "[link=file:///etc/passwd]x[Errno -2] x[bold]x[/][/][@click=app.quit]x[ unbalanced"
    "a\\[bold]b[@click=app.quit]click[/][bold]b[/bold]"
)
NAME = "hostile" + TRICKS + "hostile"
NODE = "node-" + NAME.replace(":", "")  # langgraph keeps ':' for its namespaces
TOOL = "tool-" + NAME

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
    notes: list[dict[str, Any]]
    messages: Annotated[list[AnyMessage], add_messages]


def step(state: HostileState) -> dict[str, Any]:
    # Every place a node update holds text: a string, lists of dicts, dict keys, and a
    # tool's name, arguments and result.
    call = {"name": TOOL, "args": {NAME: [NAME]}, "id": "call-hostile"}
    return {
        "note": NAME,
        "notes": [{"content": NAME, NAME: [{NAME: NAME}]}],
        "messages": [
            AIMessage(content="", tool_calls=[call]),
            ToolMessage(content=NAME, name=TOOL, tool_call_id="call-hostile"),
            AIMessage(content=f"answer {NAME}"),
        ],
    }


builder = StateGraph(HostileState, context_schema=HostileContext)
builder.add_node(NODE, step)
builder.add_edge(START, NODE)
builder.add_edge(NODE, END)
graph = builder.compile()
