"""The thread view's graph pane (`v`): the assistant's graph with the run lit on it.

A line saying what the drawing shows (running, paused, breakpoints) over the drawing
(`tui/widgets/graph_view.py`: the node cursor, subgraphs expanded in place). `b` / `B`
on the node under the cursor toggles pausing before / after it: the chat's breakpoints,
the same the `b` modal sets. `LiveGraph` (graph_live.py) feeds it.

Hidden until `v`, the pane is built the first time it shows (`build`): most visits never
show it, and its drawing (an empty graph model to start from) was a good part of the
widgets mounted on opening the thread view.
"""

from __future__ import annotations

from typing import ClassVar, Literal, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui.tui.widgets.graph_view import GraphView

LEGEND = "▶ running  ✓n ran n-th  ‖ paused  ? asks  ● breakpoint (top: before, bottom: after)"


class TogglesBreakpoints(Protocol):
    def toggle_breakpoint(self, side: Literal["before", "after"]) -> None: ...

    def redraw(self) -> None: ...


class GraphPane(Vertical):
    DEFAULT_CSS = """
    GraphPane { width: 1fr; display: none; border-right: solid $primary; }
    GraphPane #graph-status { height: auto; padding: 0 1; background: $boost; }
    GraphPane #graph-legend { height: auto; padding: 0 1; color: $text-muted; }
    GraphPane GraphView { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "breakpoint('before')", "Pause before", id="graph_pane.before"),
        Binding("B", "breakpoint('after')", "Pause after", id="graph_pane.after"),
    ]

    def __init__(self, live: TogglesBreakpoints, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live = live

    async def build(self) -> None:
        """Mount the status line, the drawing and the legend, once (the pane must be
        mounted): until they are mounted, the first time."""
        if not self.children:
            await self.mount_all(
                [
                    Static("Graph", id="graph-status"),
                    GraphView(id="live-graph"),
                    Static(LEGEND, id="graph-legend"),
                ]
            )

    @property
    def view(self) -> GraphView:
        return self.query_one(GraphView)

    def say(self, status: Text) -> None:
        self.query_one("#graph-status", Static).update(status)

    def action_breakpoint(self, side: Literal["before", "after"]) -> None:
        self.live.toggle_breakpoint(side)

    def on_graph_view_expanded(self) -> None:
        self.live.redraw()  # the status line counts the boxes drawn
