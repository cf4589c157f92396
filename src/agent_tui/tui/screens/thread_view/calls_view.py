"""The Calls tab: every model and tool call of the selected checkpoint's run (or of the
whole thread), in order, as this machine's trace store has them (`traces.scoped_calls`).

A line says whose calls these are; the table (a `ResourceTable`: cells drawn straight
to segments, rows added by chunks, so thousands show their first screenful at once)
lists each call — its name (the model's class or the tool, coloured by kind), node
(under the subgraphs it ran in: ``chat/agent``), model (provider), tokens in→out
(``—``: not reported), latency, time to first token, and how it finished (the finish
reason; else its status); a line under it gives the totals. The table fits the thread
view's right pane: numbers are compact (``12k``, ``1.2s``) and a narrow pane drops whole
columns, the least needed first, never cuts them off (`call_columns`). `enter` on a
call posts `Opened` (the screen's part shows the call whole). With no traces here, a
plain sentence says why instead of an empty table. Every server string is inert text.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from agent_tui.text.compact import compact_count, compact_seconds
from agent_tui.traces.calls import CallSummary
from agent_tui.traces.query import SUCCESS
from agent_tui.traces.scoped_calls import ScopedCalls
from agent_tui.tui.widgets.resource_table import Column, ResourceTable, status_text
from agent_tui.tui.widgets.text import server_text

KIND_STYLES = {"llm": "magenta", "tool": "cyan"}
NOT_SHOWN = "—"  # a cell whose value the call did not report
FIRST = 80  # calls shown first: a screenful of the tallest terminal, before the rest are read
PAGE = 200  # calls put in the table at a time after that (as the cursor nears the end)


def node_path(call: CallSummary) -> str:
    """The call's node under the subgraphs it ran in, outermost first: ``chat/agent``."""
    parts = (call.checkpoint_ns or "").split("|")[:-1]
    return "/".join([*(part.split(":", 1)[0] for part in parts), call.node or "?"])


def tokens_of(call: CallSummary) -> str:
    """``21→7``, ``12k→1.2k``; ``—`` when the model reported no tokens (a tool has none)."""
    if call.input_tokens is None and call.output_tokens is None:
        return NOT_SHOWN
    given = "?" if call.input_tokens is None else compact_count(call.input_tokens)
    made = "?" if call.output_tokens is None else compact_count(call.output_tokens)
    return f"{given}→{made}"


def model_of(call: CallSummary) -> str:
    """``gpt-4o-mini (openai)``: cut at the column's edge, the provider goes first."""
    if not call.model:
        return ""
    return f"{call.model} ({call.provider})" if call.provider else call.model


def finish_of(call: CallSummary) -> Text:
    """How the call ended: its finish reason when it succeeded, else its status."""
    if call.status == SUCCESS and call.finish_reason:
        return server_text(call.finish_reason)
    return status_text(call.status)


def name_of(call: CallSummary) -> Text:
    """The model's class or the tool, in the colour of its kind (model or tool: the Model
    column is empty for a tool)."""
    return server_text(call.name, style=KIND_STYLES.get(call.run_type, ""))


def _latency(call: CallSummary) -> str:
    return "" if call.latency is None else compact_seconds(call.latency)


def _first_token(call: CallSummary) -> str:
    ttft = call.time_to_first_token
    return "" if ttft is None else compact_seconds(ttft)


def call_columns() -> list[Column[CallSummary]]:
    """The columns, each with the least table width it is drawn in (`needs`): a column
    takes its width and two cells of padding; a narrow pane drops time to first token
    first, then the model, then the latency. The weights suit the thread view's right
    pane at 160 columns (32 cells to share): ``lookup_weather`` whole, the model's name
    before its provider."""
    name, node, model, tokens, seconds, finish = 10, 6, 8, 9, 5, 10
    core = sum(width + 2 for width in (name, node, tokens, finish))
    with_latency = core + seconds + 2
    with_model = with_latency + model + 2
    with_first_token = with_model + seconds + 2
    return [
        Column("name", "Name", name_of, width=name, flex=5),
        Column("node", "Node", node_path, width=node, flex=2),
        Column("model", "Model", model_of, width=model, flex=4, needs=with_model),
        Column("tokens", "Tokens", tokens_of, width=tokens),
        Column("latency", "Time", _latency, width=seconds, needs=with_latency),
        Column("ttft", "TTFT", _first_token, width=seconds, needs=with_first_token),
        Column("finish", "Finish", finish_of, width=finish),
    ]


class CallsTable(ResourceTable[CallSummary]):
    """The calls, one row each, in the order they ran."""

    DEFAULT_CSS = """
    CallsTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(call_columns(), item_id=lambda call: call.id, id=id)


class CallsView(Vertical):
    """What the Calls tab shows: `show(scoped, scope)`, `show_absent(reason)`,
    `show_reading(scope)`."""

    DEFAULT_CSS = """
    CallsView { height: 1fr; }
    CallsView #calls-scope { padding: 0 1; text-style: bold; }
    CallsView #calls-totals { padding: 0 1; color: $text-muted; }
    CallsView #calls-absent { padding: 1 2; }
    """

    class Opened(Message):
        """`enter` on a call: show it whole."""

        def __init__(self, call: CallSummary) -> None:
            super().__init__()
            self.call = call

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Made here, not in compose: the tab is built when first shown and may be drawn
        # into before it is mounted.
        self.scope_line = Static("", id="calls-scope")
        self.table = CallsTable(id="calls-table")
        self.totals_line = Static("", id="calls-totals")
        self.absent = Static("", id="calls-absent")
        self.absent.display = False
        self.shown: ScopedCalls | None = None

    def compose(self) -> ComposeResult:
        yield self.scope_line
        yield self.table
        yield self.totals_line
        yield self.absent

    def show_reading(self, scope: Text) -> None:
        self.scope_line.update(scope)
        self.totals_line.update(Text("reading the trace store…", style="dim"))

    def show(self, scoped: ScopedCalls, scope: Text) -> None:
        """The calls of `scoped`, under the line `scope` (whose calls they are): all of
        them, or the first (`complete` False) until `show_all` brings the rest."""
        self.shown = scoped
        self.absent.display = False
        self.table.display = self.totals_line.display = True
        self.scope_line.update(scope)
        # A page first, the rest as the cursor nears the end (`NeedMore`): rendering the
        # cells of 5,000 calls up front held back the first screenful.
        more = len(scoped.calls) > FIRST or not scoped.complete
        self.table.set_rows(scoped.calls[:FIRST], has_more=more)
        self._show_totals(scoped)

    def show_all(self, scoped: ScopedCalls) -> None:
        """Every call of what `show` showed the first of, and their totals."""
        self.shown = scoped
        loaded = self.table.loaded_count
        rest = scoped.calls[loaded : loaded + PAGE]
        self.table.append_rows(rest, has_more=loaded + PAGE < len(scoped.calls))
        self._show_totals(scoped)

    def _show_totals(self, scoped: ScopedCalls) -> None:
        if scoped.totals is not None and scoped.calls:
            self.totals_line.update(server_text(scoped.totals.text()))
        elif scoped.totals is not None:
            self.totals_line.update(Text("No model or tool calls.", style="dim"))
        else:
            self.totals_line.update(Text("adding up the totals…", style="dim"))

    def show_absent(self, scope: Text, reason: str) -> None:
        """No calls to list, and why (`traces.untraced`)."""
        self.shown = None
        self.scope_line.update(scope)
        self.table.set_rows([])
        self.table.display = self.totals_line.display = False
        self.absent.update(server_text(reason))
        self.absent.display = True

    def on_resource_table_need_more(self, event: ResourceTable.NeedMore) -> None:
        event.stop()
        if self.shown is not None and self.shown.complete:  # else `show_all` will
            calls = self.shown.calls
            more = calls[event.loaded : event.loaded + PAGE]
            self.table.append_rows(more, has_more=event.loaded + PAGE < len(calls))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        call = self.table.selected_item
        if call is not None:
            self.post_message(self.Opened(call))
