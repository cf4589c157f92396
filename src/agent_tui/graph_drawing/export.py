"""A graph as a Mermaid flowchart, and its layout as JSON (for other tools)."""

from __future__ import annotations

from typing import Any

from agent_tui.graph_drawing.model import Graph, Layout, is_small, shown_name
from agent_tui.text.sanitize import clean_text


def _mermaid_label(text: str) -> str:
    # Mermaid reads `"` as the end of a label and `#…;` as an entity.
    cleaned = " ".join(clean_text(text).split())
    return cleaned.replace("#", "#35;").replace('"', "#quot;")


def mermaid(graph: Graph) -> str:
    """`flowchart TD`: nodes as `n0["name"]` (the ends rounded), edges `-->`, a
    conditional one dashed `-.->`."""
    ids = {node: f"n{index}" for index, node in enumerate(graph.nodes)}
    lines = ["flowchart TD"]
    for node, ident in ids.items():
        label = _mermaid_label(shown_name(node) if is_small(node) else node)
        shape = f'(["{label}"])' if is_small(node) else f'["{label}"]'
        lines.append(f"    {ident}{shape}")
    for edge in graph.edges:
        arrow = "-.->" if edge.conditional else "-->"
        lines.append(f"    {ids[edge.source]} {arrow} {ids[edge.target]}")
    return "\n".join(lines)


def layout_json(layout: Layout) -> dict[str, Any]:
    """Stable keys: the drawing's size, each node's layer, order and box (cells, from the
    top left), each edge's routed points (from below its source to its arrowhead), each
    subgraph's frame (xray)."""
    return {
        "width": layout.width,
        "height": layout.height,
        "compact": layout.compact,
        "nodes": [
            {
                "id": clean_text(box.node),
                "name": box.name,
                "layer": box.layer,
                "order": box.order,
                "x": box.x,
                "y": box.y,
                "width": box.width,
                "height": box.height,
            }
            for box in sorted(layout.boxes.values(), key=lambda b: (b.layer, b.order))
        ],
        "edges": [
            {
                "source": clean_text(route.edge.source),
                "target": clean_text(route.edge.target),
                "conditional": route.edge.conditional,
                "loop": route.back,
                "points": [list(point) for point in route.points],
            }
            for route in layout.routes
        ],
        "frames": [
            {
                "subgraph": frame.name,
                "x": frame.x,
                "y": frame.y,
                "width": frame.width,
                "height": frame.height,
            }
            for frame in layout.frames
        ],
    }
