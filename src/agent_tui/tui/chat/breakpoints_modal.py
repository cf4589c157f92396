"""`b`: the assistant's nodes with a pause-before and a pause-after toggle each, and `*`
for stepping (pause before every node) — the breakpoints of a thread's runs.

The nodes come from the assistant's graph (`chat.breakpoints.load_graph_nodes`), the
nodes inside subgraphs indented under theirs. Those cannot be paused at from a run: their
Before and After say `—`, and a line under the table says why and what to do instead
(for the node under the cursor). Works on a copy: `enter` answers it, `esc` answers None.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from agent_tui.chat.breakpoints import (
    BreakpointNode,
    BreakpointRefused,
    Side,
    ThreadBreakpoints,
    load_graph_nodes,
)
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

ON = "● pause"
OFF = "·"
CANNOT = "—"
SIDE_WIDTH = len("● stepping")
MODAL_WIDTH = 84


class BreakpointsScreen(ReportsWorkerFailures, ModalScreen[ThreadBreakpoints | None]):
    DEFAULT_CSS = """
    BreakpointsScreen { align: center middle; }
    BreakpointsScreen > Vertical {
        width: 84; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    BreakpointsScreen .modal-title { text-style: bold; margin-bottom: 1; }
    BreakpointsScreen #breakpoint-nodes { height: auto; max-height: 20; }
    BreakpointsScreen #breakpoint-stepping { margin-top: 1; }
    BreakpointsScreen #breakpoint-why { color: $text-muted; }
    BreakpointsScreen #breakpoint-message { color: $text-warning; }
    BreakpointsScreen .modal-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("b,space", "toggle_side('before')", "Before", id="breakpoints.before"),
        Binding("a", "toggle_side('after')", "After", id="breakpoints.after"),
        Binding("asterisk", "stepping", "Stepping", id="breakpoints.stepping"),
        Binding("enter,ctrl+s", "accept", "Use these", priority=True, id="breakpoints.accept"),
        Binding("escape", "cancel", "Cancel", id="breakpoints.cancel"),
    ]

    def __init__(
        self, client: AgentServerClient, assistant_id: str, chosen: ThreadBreakpoints
    ) -> None:
        super().__init__()
        self.client = client
        self.assistant_id = assistant_id
        self.chosen = ThreadBreakpoints(list(chosen.before), list(chosen.after), chosen.stepping)
        self.nodes: list[BreakpointNode] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                server_text(f"Breakpoints of this thread's runs ({self.assistant_id})"),
                classes="modal-title",
            )
            table: DataTable[str | Text] = DataTable(id="breakpoint-nodes", cursor_type="row")
            table.add_column("Node")
            table.add_column("Before", width=SIDE_WIDTH)
            table.add_column("After", width=SIDE_WIDTH)
            yield table
            yield Static(id="breakpoint-why")
            yield Static(id="breakpoint-stepping")
            yield Static(id="breakpoint-message")
            yield Static(
                "b/space before · a after · * stepping · enter uses them · esc cancels",
                classes="modal-hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._show_stepping()
        self.say("loading the graph's nodes…")
        self._load()

    @work(exclusive=True, group="breakpoints-load", exit_on_error=False)
    async def _load(self) -> None:
        try:
            self.nodes = await load_graph_nodes(self.client, self.assistant_id)
        except ApiError as error:
            self.say(f"Cannot read the graph: {error}")
            return
        self.say("" if self.nodes else "The graph has no nodes.")
        # Wide enough that why a node cannot pause fits one line (the screen allowing).
        reasons = [len(node.refusal) for node in self.nodes if node.refusal is not None]
        if reasons:
            self.query_one(Vertical).styles.width = max(MODAL_WIDTH, max(reasons) + 6)
        self._fill()

    def _fill(self) -> None:
        table: DataTable[str | Text] = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for node in self.nodes:
            table.add_row(*self._cells(node), key=node.name)
        if self.nodes:
            table.move_cursor(row=min(max(row, 0), len(self.nodes) - 1))
        self._show_why()

    def _cells(self, node: BreakpointNode) -> tuple[Text, Text, Text]:
        name = server_text("  " * node.depth + node.name)
        if not node.pausable:
            name.stylize("dim")
            return name, Text(CANNOT, style="dim"), Text(CANNOT, style="dim")
        return name, self._mark(node, "before"), self._mark(node, "after")

    def on_data_table_row_highlighted(self) -> None:
        self._show_why()

    def _show_why(self) -> None:
        """Why the node under the cursor cannot pause (a node inside a subgraph), else
        what `—` means when the graph has such nodes; nothing otherwise."""
        node = self.node
        if node is not None and node.refusal is not None:
            why = server_text(node.refusal[:1].upper() + node.refusal[1:] + ".")
        elif any(not n.pausable for n in self.nodes):
            why = Text(f"{CANNOT}: inside a subgraph, where a run cannot pause (see why on one)")
        else:
            why = Text("")
        line = self.query_one("#breakpoint-why", Static)
        line.update(why)
        line.display = bool(why.plain)

    def _mark(self, node: BreakpointNode, side: Side) -> Text:
        if side == "before" and self.chosen.stepping:
            return Text("● stepping", style="bold magenta")
        if self.chosen.is_set(node.name, side):
            return Text(ON, style="bold magenta")
        return Text(OFF, style="dim")

    def _show_stepping(self) -> None:
        text = Text("stepping (pause before every node): ")
        if self.chosen.stepping:
            text.append("on", style="bold magenta")
        else:
            text.append("off")
        self.query_one("#breakpoint-stepping", Static).update(text)

    def say(self, message: str) -> None:
        self.query_one("#breakpoint-message", Static).update(server_text(message))

    @property
    def node(self) -> BreakpointNode | None:
        table = self.query_one(DataTable)
        if not self.nodes or table.cursor_row < 0:
            return None
        return self.nodes[min(table.cursor_row, len(self.nodes) - 1)]

    def action_toggle_side(self, side: Side) -> None:
        node = self.node
        if node is None:
            return
        try:
            now = self.chosen.toggle(node, side)
        except BreakpointRefused as refused:
            self.say(str(refused))
            return
        self.say(f"{'pause' if now else 'no pause'} {side} {node.name}")
        self._fill()

    def action_stepping(self) -> None:
        on = self.chosen.toggle_stepping()
        self.say("stepping: the runs pause before every node" if on else "stepping off")
        self._show_stepping()
        self._fill()

    def action_accept(self) -> None:
        self.dismiss(self.chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
