"""Comparing checkpoints in the thread view: mark (`m`), diff (`d`), the fork tree (`t`).

A base class of `ThreadViewScreen` (screen.py), which owns the history, the history
pane and `show_row`. The diff tab shows the selected checkpoint against its parent, or
against the checkpoint marked with `m` after `d` (`thread_diff.diff_for`); the fork tree
tab draws the loaded checkpoints by parent id, and `enter` in it jumps to one. Switching
tabs lands here too: the Chat tab loads its transcript on first sight and takes the focus.
"""

from __future__ import annotations

from textual import on, work
from textual.widgets import TabbedContent

from agent_tui.client import ApiError
from agent_tui.history import HistoryRow
from agent_tui.screens.thread_view.chat import ThreadChat
from agent_tui.screens.thread_view.diff import diff_for
from agent_tui.widgets.diff_view import DiffView
from agent_tui.widgets.fork_tree import ForkTree
from agent_tui.widgets.history_pane import HistoryPane


class ThreadCompare(ThreadChat):
    diff_against_mark: bool

    @property
    def pane(self) -> HistoryPane:
        return self.query_one(HistoryPane)

    @property
    def diff_view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def fork_tree(self) -> ForkTree:
        return self.query_one(ForkTree)

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one(TabbedContent)

    def show_row(self, row: HistoryRow) -> None:
        raise NotImplementedError

    # -- diff -------------------------------------------------------------------------

    def action_mark(self) -> None:
        row = self.selected_row
        if row is None:
            return
        if self.pane.marked == row.checkpoint_id:
            self.pane.set_mark(None)
            self.diff_against_mark = False
            self.notify("Mark cleared", markup=False)
            return
        self.pane.set_mark(row.checkpoint_id)
        self.notify(
            f"Marked step {row.step} ({row.short_id}): select another checkpoint, then d",
            markup=False,
        )

    def action_diff(self) -> None:
        row = self.selected_row
        if row is None:
            return
        self.diff_against_mark = self.pane.marked is not None
        self.tabs.active = "tab-diff"
        self._show_diff(row)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-chat":
            self.chat.show()
            self.chat.prompt.focus()
            return
        if self.chat.has_focus_within and self.pane.display:
            self.pane.focus()  # keys typed next must not go to the hidden prompt
        row = self.selected_row
        if row is None:
            return
        if event.pane.id == "tab-diff":
            self._show_diff(row)
        elif event.pane.id == "tab-tree":
            self._refresh_tree()

    @work(exclusive=True, group="thread-diff", exit_on_error=False)
    async def _show_diff(self, row: HistoryRow) -> None:
        mark = self.pane.marked if self.diff_against_mark else None
        try:
            diff, heading = await diff_for(self.history, row, mark)
        except ApiError as error:
            self.report_error(error, doing="load the parent checkpoint")
            return
        if diff is None:
            self.diff_view.show_message(heading)
        else:
            self.diff_view.show(diff, heading)

    # -- fork tree --------------------------------------------------------------------

    def action_tree(self) -> None:
        self.tabs.active = "tab-tree"
        self._refresh_tree()
        self.fork_tree.focus()

    def _refresh_tree(self) -> None:
        if self.tabs.active != "tab-tree":
            return
        selected = self.selected_row
        self.fork_tree.build(self.history.rows, selected.checkpoint_id if selected else None)

    @on(ForkTree.Jump)
    def _jump(self, event: ForkTree.Jump) -> None:
        if self.pane.move_to(event.checkpoint_id):
            row = self.pane.get_item(event.checkpoint_id)
            if row is not None:
                self.show_row(row)
            self.tabs.active = "tab-state"
            self.pane.focus()
