"""Hostile data on the real agent server, and the check that a screen draws it inertly.

The `hostile` test graph (`tests/graphs/hostile.py`) names its node and its context
schema's property (title, description, a choice) with escape sequences, C1 controls,
NUL, bidi overrides, markup and markup-shaped text. `hostile_assistant` adds an assistant of it whose name,
description, metadata and context hold `EVERYTHING` (`hostile_text.py`).

`drawn_inertly(app, ...)` reads what the screen paints (`screen.screen_text`, the
characters the terminal would get) and fails on any character a terminal would act on
(`hostile_text.terminal_controls`); each text given must be painted as it is (markup
shown literally, not applied, and the text shown, not dropped).
"""

from __future__ import annotations

import uuid
from typing import Any

from textual.app import App

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls
from tests.support.screen import screen_text

GRAPH = "hostile"
MARKUP = "[@click=app.quit]click[/][bold]b[/bold]"  # the end of `EVERYTHING`, as typed
# The markup shapes first in `EVERYTHING` and in the graph's names, as typed: what a
# screen shows of a name cut at its width. A node's name has no ':' (langgraph's own).
SHAPES = "[link=file:///etc/passwd]x[Errno -2] x[bold]x[/][/]"
NODE_SHAPES = SHAPES.replace(":", "")
# A name holding `EVERYTHING` as a wide pane wraps it (at the space in `[ unbalanced`):
# its markup shapes on one line, the rest as typed on the next.
WRAPPED_HEAD = "[link=file:///etc/passwd]x[Errno -2] x[bold]x[/][/][@click=app.quit]x["
WRAPPED_TAIL = "unbalanceda\\[bold]b[@click=app.quit]click[/][bold]b[/bold]hostile"


async def hostile_assistant(client: AgentServerClient) -> Assistant:
    """An assistant of the hostile graph, hostile in every field a person reads."""
    schemas = await client.assistants.get_schemas(
        (await client.assistants.search(graph_id=GRAPH, metadata={"created_by": "system"}))[
            0
        ].assistant_id
    )
    properties = (schemas.context_schema or {}).get("properties", {})
    context = {name: EVERYTHING for name in properties if name != "pick"}
    return await client.assistants.create(
        GRAPH,
        context,
        f"{uuid.uuid4().hex[:6]} {EVERYTHING}",
        {EVERYTHING: EVERYTHING},
        description=EVERYTHING,
    )


def drawn_inertly(app: App[Any], *literal: str) -> str:
    """What the screen paints now, checked: nothing a terminal acts on, `MARKER` and
    each of `literal` painted as they are."""
    painted = screen_text(app)
    controls = terminal_controls(painted)
    assert controls == [], f"painted {controls} on {type(app.screen).__name__}:\n{painted}"
    for text in (MARKER, *literal):
        assert text in painted, f"{text!r} not painted on {type(app.screen).__name__}:\n{painted}"
    return painted
