"""A graph drawn as boxes and arrows (`graph_drawing`) or as text (`graph_text`: its
layers and edges), scrollable both ways, with a node cursor, coloured.

Used by the assistant's graph (`v` on an assistant) and the thread view's live graph
pane. The cursor moves between the boxes (`j`/`k` in reading order, `up`/`down` to the
nearest box of the layer above or below, `left`/`right` in the layer) and the view
scrolls to keep it in sight; `enter` or `e` on a subgraph's box draws its nodes in a
frame in place, on a node inside one collapses it again; `x` expands every subgraph or
none. Give it the graph as the server sends it with `xray` to have subgraphs to expand.

The drawing has a compact form (`compact`: each box just its name, narrower) for wide
graphs; the text form lists what the drawing shows, for a screen reader or a copy.
`marks` (`graph_drawing.live.NodeMarks`) are painted on top (`widgets/graph_paint.py`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Static

from agent_tui.assistants import graph_text as listing
from agent_tui.assistants.graph_text import Kind, graph_lines, graph_text
from agent_tui.client.models import AssistantGraph
from agent_tui.graph_drawing import Box, Graph, Layout, collapse, graph_from_server, layout
from agent_tui.graph_drawing import render as render_plain
from agent_tui.graph_drawing import subgraphs as subgraph_names
from agent_tui.graph_drawing.live import NodeMarks
from agent_tui.tui.widgets.graph_paint import paint
from agent_tui.tui.widgets.text import server_text

STYLES: dict[Kind, str] = {
    "label": "dim",
    "node": "bold",
    "edge": "",
    "conditional": "yellow",
    "loop": "magenta",
    "note": "italic dim",
}


def list_of(graph: Graph) -> tuple[list[str], list[listing.Edge]]:
    """The nodes and edges as the list form (`graph_text`) takes them."""
    edges = [listing.Edge(e.source, e.target, e.conditional) for e in graph.edges]
    return list(graph.nodes), edges


def list_renderable(graph: Graph) -> Text:
    """The layers and edges as one `Text`; node names (server strings) are cleaned, never
    markup."""
    text = Text(no_wrap=True, overflow="ignore")
    for index, line in enumerate(graph_lines(*list_of(graph))):
        if index:
            text.append("\n")
        for piece, kind in line:
            text.append_text(server_text(piece, style=STYLES[kind]))
    return text


def _reading_order(boxes: list[Box]) -> list[Box]:
    return sorted(boxes, key=lambda box: (box.layer, box.x))


class GraphView(ScrollableContainer, can_focus=True):
    """Scrolls both ways: wide graphs are not wrapped (that would break the drawing)."""

    DEFAULT_CSS = """
    GraphView { height: 1fr; }
    GraphView > Static { width: auto; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "Next node", show=False, id="graph_view.next"),
        Binding("k", "move(-1)", "Previous node", show=False, id="graph_view.previous"),
        Binding("down", "layer(1)", "Node below", show=False, id="graph_view.down"),
        Binding("up", "layer(-1)", "Node above", show=False, id="graph_view.up"),
        Binding("right", "beside(1)", "Node right", show=False, id="graph_view.right"),
        Binding("left", "beside(-1)", "Node left", show=False, id="graph_view.left"),
        Binding("enter,e", "toggle_subgraph", "Expand", id="graph_view.expand"),
        Binding("x", "expand_all", "All subgraphs", id="graph_view.expand_all"),
    ]

    class Expanded(Message):
        """The subgraphs drawn with their nodes changed (`view.expanded`)."""

        def __init__(self, view: GraphView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> GraphView:
            return self.view

    def __init__(self, graph: AssistantGraph | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.graph = graph or AssistantGraph()
        self.compact = False
        self.as_list = False
        # The subgraphs drawn with their nodes (None: as the server sent the graph).
        self.expanded: frozenset[str] | None = None
        self.marks: NodeMarks | None = None
        self.selected: str | None = None  # the node under the cursor
        self._layout: Layout | None = None
        self._subgraphs: list[str] | None = None

    @property
    def full_graph(self) -> Graph:
        return graph_from_server(self.graph)

    @property
    def shown_graph(self) -> Graph:
        graph = self.full_graph
        return graph if self.expanded is None else collapse(graph, self.expanded)

    @property
    def drawn(self) -> Layout:
        """The layout shown (made once per graph, form and expansion)."""
        if self._layout is None:
            self._layout = layout(self.shown_graph, compact=self.compact)
        return self._layout

    @property
    def plain(self) -> str:
        """What is shown, as plain text (the marks included)."""
        if self.as_list:
            return graph_text(*list_of(self.shown_graph))
        if self.marks is None and self.selected is None:
            return render_plain(self.drawn)
        return "\n".join(line.rstrip() for line in self._renderable().plain.splitlines())

    def compose(self) -> ComposeResult:
        yield Static(self._renderable(), id="graph-drawing")

    def _renderable(self) -> Text:
        if self.as_list:
            return list_renderable(self.shown_graph)
        if not self.drawn.boxes:
            return Text("This graph has no nodes.")
        return paint(self.drawn, self.marks, expanded=self.expanded, selected=self.selected)

    def show(
        self,
        graph: AssistantGraph | None = None,
        *,
        compact: bool | None = None,
        as_list: bool | None = None,
    ) -> None:
        """Show `graph` (default: the one shown), in the form asked for (default: the same)."""
        if graph is not None:
            self.graph = graph
        if compact is not None:
            self.compact = compact
        if as_list is not None:
            self.as_list = as_list
        self._layout = None
        self._subgraphs = None
        self._keep_selection()
        self._pick_first()
        self.redraw()
        if self.is_mounted:
            self.refresh_bindings()  # expanding is dimmed without subgraphs

    def redraw(self) -> None:
        """Paint again (the marks or the cursor changed; the layout is kept)."""
        if self.is_mounted:
            self.query_one("#graph-drawing", Static).update(self._renderable())

    # -- the cursor -------------------------------------------------------------------

    @property
    def boxes(self) -> list[Box]:
        """The boxes the cursor visits, in reading order (`start`/`end` are left out)."""
        boxes = [box for box in self.drawn.boxes.values() if not box.small]
        return _reading_order(boxes or list(self.drawn.boxes.values()))

    def _keep_selection(self) -> None:
        """After a change of layout: the same node, else the box now drawn for it (the
        subgraph it went into, or the first node of the subgraph it opened into)."""
        selected = self.selected
        if selected is None or selected in self.drawn.boxes:
            return
        boxes = self.boxes
        outer = [box.node for box in boxes if selected.startswith(f"{box.node}:")]
        inner = [box.node for box in boxes if box.node.startswith(f"{selected}:")]
        found = outer or inner
        self.selected = found[0] if found else None

    def select(self, node: str | None) -> None:
        self.selected = node
        self.redraw()
        box = self.drawn.boxes.get(node) if node else None
        if box is not None and self.is_mounted:
            region = Region(box.x, box.y, box.width, box.height)
            self.call_after_refresh(self.scroll_to_region, region.grow((1, 2, 1, 2)))

    def on_focus(self) -> None:
        """The cursor shows as soon as the drawing has the keys: the first box is picked."""
        self._pick_first()

    def _pick_first(self) -> None:
        if self.selected is None and self.has_focus and not self.as_list and self.boxes:
            self.select(self.boxes[0].node)

    def on_click(self, event: events.Click) -> None:
        """A click on a box picks it (as Studio's canvas does); elsewhere, nothing."""
        if self.as_list:
            return
        offset = event.get_content_offset(self.query_one("#graph-drawing", Static))
        if offset is None:
            return
        for box in self.drawn.boxes.values():
            if box.contains(offset.x, offset.y):
                self.focus()
                self.select(box.node)
                return

    def _current(self) -> Box | None:
        return self.drawn.boxes.get(self.selected) if self.selected else None

    def action_move(self, step: int) -> None:
        boxes = self.boxes
        if not boxes or self.as_list:
            return
        current = self._current()
        if current is None or current not in boxes:
            self.select(boxes[0 if step > 0 else -1].node)
            return
        index = boxes.index(current) + step
        self.select(boxes[max(0, min(len(boxes) - 1, index))].node)

    def action_layer(self, step: int) -> None:
        current = self._current()
        if current is None:
            self.action_move(step)
            return
        middle = current.x + current.width / 2
        layers = sorted({box.layer for box in self.boxes})
        ahead = [layer for layer in layers if (layer - current.layer) * step > 0]
        if not ahead:
            return
        layer = ahead[0] if step > 0 else ahead[-1]
        found = [box for box in self.boxes if box.layer == layer]
        self.select(min(found, key=lambda box: abs(box.x + box.width / 2 - middle)).node)

    def action_beside(self, step: int) -> None:
        current = self._current()
        if current is None:
            self.action_move(step)
            return
        row = [box for box in self.boxes if box.layer == current.layer]
        index = row.index(current) + step if current in row else 0
        if 0 <= index < len(row):
            self.select(row[index].node)

    # -- subgraphs in place -----------------------------------------------------------

    @property
    def subgraphs(self) -> list[str]:
        if self._subgraphs is None:
            self._subgraphs = subgraph_names(self.full_graph)
        return self._subgraphs

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Expanding is dimmed (not passed on to the screen) on a graph with no subgraph."""
        if action in ("toggle_subgraph", "expand_all") and not self.subgraphs:
            return None
        return True

    def set_expanded(self, expanded: frozenset[str] | None) -> None:
        self.expanded = expanded
        self.show()
        self.select(self.selected)
        self.post_message(self.Expanded(self))

    def action_toggle_subgraph(self) -> None:
        """On a subgraph's box: its nodes in place; on a node inside one: that subgraph
        as one box again."""
        node = self.selected
        names = self.subgraphs
        if node is None or self.as_list:
            return
        opened = set(names if self.expanded is None else self.expanded)
        if node in names and node not in opened:
            parts = node.split(":")
            opened |= {":".join(parts[:depth]) for depth in range(1, len(parts) + 1)}
        else:
            inside = node.rpartition(":")[0]
            if not inside:
                self.notify(
                    "Not a subgraph: enter or e on a subgraph's box draws its nodes.",
                    markup=False,
                )
                return
            opened = {
                name for name in opened if name != inside and not name.startswith(inside + ":")
            }
            self.selected = inside
        self.set_expanded(frozenset(opened))

    def action_expand_all(self) -> None:
        names = frozenset(self.subgraphs)
        if not names:
            self.notify("This graph has no subgraphs.", markup=False)
            return
        everything = self.expanded is None or names <= self.expanded
        self.set_expanded(frozenset() if everything else names)
