"""The history pane of the thread view: one row per checkpoint, most recent first.

A `LineTable` of `history.HistoryRow`s keyed by checkpoint id: each row is drawn from its
`HistoryRow` when it scrolls into view (a row off screen holds nothing else), and
`NeedMore` is posted when the cursor nears the end of the rows loaded.
Columns: a mark (`m` in the thread view), step, source, the nodes that wrote, what runs
next (`⤷`: a node that runs a subgraph), how many interrupts wait (Int), time and the short
checkpoint id. The node columns grow with the terminal; a name that does not fit ends in
`…`. Every cell is inert text.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from agent_tui.threads.history import HistoryRow
from agent_tui.tui.widgets.line_table import LineTable
from agent_tui.tui.widgets.resource_table import Column, one_line
from agent_tui.tui.widgets.text import server_text

SOURCE_STYLES = {"input": "cyan", "loop": "", "update": "yellow", "fork": "magenta"}
MARK = "◆"


def _source(row: HistoryRow) -> Text:
    return server_text(row.source or "—", style=SOURCE_STYLES.get(row.source or "", "dim"))


def _interrupts(row: HistoryRow) -> Text:
    if not row.interrupts:
        return Text("")
    return Text(str(len(row.interrupts)), style="bold magenta")


def _next(row: HistoryRow) -> Text:
    """What runs next; `⤷` marks a node that runs a subgraph (its checkpoints are in the
    State tab), before its name so that a name cut to fit keeps it."""
    inside = row.subgraph_namespaces
    text = Text()
    for i, name in enumerate(row.next):
        if i:
            text.append(", ")
        if name in inside:
            text.append("⤷", style="bold cyan")
        text.append_text(server_text(one_line(name)))
    return text


def short_time(row: HistoryRow) -> str:
    """`11-21 16:34:55`: the year takes room and rarely tells checkpoints apart."""
    time = row.time
    return time[5:] if len(time) == 19 else time


def history_columns(
    is_marked: Callable[[str], bool], time_of: Callable[[HistoryRow], str]
) -> list[Column[HistoryRow]]:
    return [
        Column(
            "mark",
            " ",
            lambda r: Text(MARK, style="bold cyan") if is_marked(r.checkpoint_id) else Text(""),
            width=1,
        ),
        Column("step", "Step", lambda r: Text("—" if r.step is None else str(r.step)), width=5),
        Column("source", "Source", _source, width=6),
        # The node names share what the terminal leaves (at least 16 and 12 cells).
        Column("wrote", "Wrote", lambda r: one_line(r.wrote), width=16, flex=3),
        Column("next", "Next", _next, width=12, flex=2),
        Column("interrupts", "Int", _interrupts, width=3),
        Column("time", "Time (UTC)", time_of, width=14),
        Column("id", "ID", lambda r: r.short_id, width=8),
    ]


class HistoryPane(LineTable[HistoryRow]):
    """The checkpoints of one thread. `marked` is the checkpoint `m` marked (or None)."""

    DEFAULT_CSS = """
    HistoryPane { height: 1fr; }
    """

    def __init__(
        self,
        *,
        time_of: Callable[[HistoryRow], str] | None = None,
        threshold: int = 20,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self.marked: str | None = None
        super().__init__(
            history_columns(lambda cid: cid == self.marked, time_of or short_time),
            item_id=lambda r: r.checkpoint_id,
            threshold=threshold,
            id=id,
            classes=classes,
        )

    def set_mark(self, checkpoint_id: str | None) -> None:
        """Mark one checkpoint (None: no mark) and redraw the rows whose mark changed."""
        before, self.marked = self.marked, checkpoint_id
        for key in (before, checkpoint_id):
            item = self.get_item(key) if key else None
            if item is not None:
                self.update_item(item)
