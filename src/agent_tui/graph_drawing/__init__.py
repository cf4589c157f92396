"""A LangGraph graph drawn as boxes and arrows, in text (headless: no Textual).

`layout(graph)` places the nodes in layers (a Sugiyama-style layout: `layers` breaks
cycles, layers the nodes and orders each layer; `placement` sizes and places the boxes;
`routing` runs the edges through the gaps), `render(layout)` draws it as characters,
`mermaid(graph)` and `layout_json(layout)` give it to other tools. `draw_payload` takes
the server's JSON as it came and never fails: what cannot be drawn is told as text.
"""

from __future__ import annotations

from typing import Any

from agent_tui.graph_drawing.export import layout_json, mermaid
from agent_tui.graph_drawing.model import (
    Box,
    Edge,
    Graph,
    Layout,
    Route,
    collapse,
    graph_from_payload,
    graph_from_server,
    is_small,
    shown_name,
    subgraphs,
)
from agent_tui.graph_drawing.render import render, render_lines
from agent_tui.graph_drawing.routing import layout

__all__ = [
    "Box",
    "Edge",
    "Graph",
    "Layout",
    "Route",
    "collapse",
    "draw",
    "draw_payload",
    "graph_from_payload",
    "graph_from_server",
    "is_small",
    "layout",
    "layout_json",
    "mermaid",
    "render",
    "render_lines",
    "shown_name",
    "subgraphs",
]


def draw(graph: Graph, *, compact: bool = False, ascii: bool = False) -> str:
    return render(layout(graph, compact=compact), ascii=ascii)


def draw_payload(payload: Any, *, compact: bool = False, ascii: bool = False) -> str:
    graph = graph_from_payload(payload)
    if isinstance(graph, str):
        return graph
    return draw(graph, compact=compact, ascii=ascii)
