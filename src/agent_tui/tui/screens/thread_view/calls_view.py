"""The Calls tab: every model and tool call of the selected checkpoint's run (or of the
whole thread), in order, as this machine's trace store has them (`traces.scoped_calls`).

A line says whose calls these are; the table (a `ResourceTable`: cells drawn straight
to segments, rows added by chunks, so thousands show their first screenful at once)
lists each call — type, name (the model's class or the tool), node, subgraph (the
checkpoint namespace above the node), model, provider, tokens in→out, latency, time to
first token, finish reason, status;
a line under it gives the totals. `enter` on a call posts `Opened` (the screen's part
shows the call whole). With no traces here, a plain sentence says why instead of an
empty table. Every server string is inert text.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from agent_tui.traces.calls import CallSummary
from agent_tui.traces.run_view import seconds
from agent_tui.traces.scoped_calls import ScopedCalls
from agent_tui.tui.widgets.resource_table import Column, ResourceTable, status_text
from agent_tui.tui.widgets.text import server_text

KIND_STYLES = {"llm": "magenta", "tool": "cyan"}
FIRST = 80  # calls shown first: a screenful of the tallest terminal, before the rest are read
PAGE = 200  # calls put in the table at a time after that (as the cursor nears the end)


def subgraph_of(call: CallSummary) -> str:
    """The subgraphs the call ran in, outermost first (``chat:1f0…|agent:7a2…`` →
    ``chat``); "" for a node of the top graph."""
    parts = (call.checkpoint_ns or "").split("|")[:-1]
    return " > ".join(part.split(":", 1)[0] for part in parts)


def tokens_of(call: CallSummary) -> str:
    if call.input_tokens is None and call.output_tokens is None:
        return ""
    given = "?" if call.input_tokens is None else call.input_tokens
    made = "?" if call.output_tokens is None else call.output_tokens
    return f"{given}→{made}"


def _kind(call: CallSummary) -> Text:
    word = "model" if call.run_type == "llm" else call.run_type
    return Text(word, style=KIND_STYLES.get(call.run_type, ""))


def _optional_seconds(value: float | None) -> str:
    return "" if value is None else seconds(value)


def call_columns() -> list[Column[CallSummary]]:
    return [
        Column("kind", "Type", _kind, width=5),
        Column("name", "Name", lambda c: c.name, width=12, flex=2),
        Column("node", "Node", lambda c: c.node or "", width=8, flex=2),
        Column("subgraph", "Subgraph", subgraph_of, width=8, flex=1),
        Column("model", "Model", lambda c: c.model or "", width=10, flex=2),
        Column("provider", "Provider", lambda c: c.provider or "", width=8),
        Column("tokens", "Tokens", tokens_of, width=9),
        Column("latency", "Latency", lambda c: _optional_seconds(c.latency), width=7),
        Column("ttft", "1st tok", lambda c: _optional_seconds(c.time_to_first_token), width=7),
        Column("finish", "Finish", lambda c: c.finish_reason or "", width=10),
        Column("status", "Status", lambda c: status_text(c.status), width=7),
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
