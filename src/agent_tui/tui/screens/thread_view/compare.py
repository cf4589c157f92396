"""Comparing checkpoints in the thread view: mark (`m`), diff (`d`), the fork tree (`t`).

A part the screen (screen.py) owns; the screen passes on its keys and the messages of its
widgets. The diff tab shows the selected checkpoint against its parent, or against the
checkpoint marked with `m` after `d` (`diff.diff_for`); the fork tree tab draws the
loaded checkpoints by parent id, and `enter` in it jumps to one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.client import ApiError
from agent_tui.tui.screens.thread_view.diff import diff_for
from agent_tui.tui.screens.thread_view.fork_tree import ForkTree
from agent_tui.tui.screens.thread_view.history_pane import HistoryPane
from agent_tui.tui.screens.thread_view.lazy_tabs import ThreadTabs
from agent_tui.tui.screens.thread_view.workers import start
from agent_tui.tui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.threads.history import HistoryRow, ThreadHistory
    from agent_tui.tui.agent_screen import AgentScreen


class Comparison:
    """The mark, the diff tab and the fork tree tab, over the loaded history."""

    def __init__(
        self,
        screen: AgentScreen[None],
        history: ThreadHistory,
        *,
        show_row: Callable[[HistoryRow], None],
    ) -> None:
        """`show_row`: the screen's way to show a checkpoint (a jump from the tree)."""
        self.screen = screen
        self.history = history
        self.show_row = show_row
        self.against_mark = False  # `d` pressed with a mark set: diff against it
        self._focus_tree = False  # `t` pressed: the tree takes the focus once drawn

    @property
    def pane(self) -> HistoryPane:
        return self.screen.query_one(HistoryPane)

    @property
    def tabs(self) -> ThreadTabs:
        return self.screen.query_one(ThreadTabs)

    # -- diff -------------------------------------------------------------------------

    def mark(self) -> None:
        row = self.pane.selected_item
        if row is None:
            return
        if self.pane.marked == row.checkpoint_id:
            self.pane.set_mark(None)
            self.against_mark = False
            self.screen.notify("Mark cleared", markup=False)
            return
        self.pane.set_mark(row.checkpoint_id)
        self.screen.notify(
            f"Marked step {row.step} ({row.short_id}): select another checkpoint, then d",
            markup=False,
        )

    def diff(self) -> None:
        row = self.pane.selected_item
        if row is None:
            return
        self.against_mark = self.pane.marked is not None
        if self.tabs.active == "tab-diff":
            self.show_diff(row)
        else:
            self.tabs.active = "tab-diff"  # drawn once shown (`tab_shown`)

    def row_shown(self, row: HistoryRow) -> None:
        """The screen shows `row`'s state: the diff tab, when open, follows."""
        if self.tabs.active == "tab-diff":
            self.show_diff(row)

    def tab_shown(self, tab_id: str | None) -> None:
        """A tab of the screen came into view (built): draw it for the selected checkpoint."""
        if tab_id == "tab-tree":
            self.refresh_tree()
            if self._focus_tree:
                self._focus_tree = False
                self.screen.query_one(ForkTree).focus()
        if self.pane.selected_item is not None and tab_id == "tab-diff":
            self.show_diff(self.pane.selected_item)

    def show_diff(self, row: HistoryRow) -> None:
        start(self.screen, "thread-diff", self._show_diff, row)

    async def _show_diff(self, row: HistoryRow) -> None:
        mark = self.pane.marked if self.against_mark else None
        try:
            diff, heading = await diff_for(self.history, row, mark)
        except ApiError as error:
            self.screen.report_error(error, doing="load the parent checkpoint")
            return
        view = self.screen.query_one(DiffView)
        if diff is None:
            view.show_message(heading)
        else:
            view.show(diff, heading)

    # -- fork tree --------------------------------------------------------------------

    def tree(self) -> None:
        if self.tabs.active != "tab-tree":
            self._focus_tree = True
            self.tabs.active = "tab-tree"  # drawn and focused once shown (`tab_shown`)
            return
        self.refresh_tree()
        self.screen.query_one(ForkTree).focus()

    def refresh_tree(self) -> None:
        """Redraw the fork tree (the history changed), when its tab is open."""
        if self.tabs.active != "tab-tree" or not self.tabs.is_ready("tab-tree"):
            return  # once mounted, `tab_shown` draws it
        selected = self.pane.selected_item
        self.screen.query_one(ForkTree).build(
            self.history.rows, selected.checkpoint_id if selected else None
        )

    def jump(self, checkpoint_id: str) -> None:
        """`enter` on a checkpoint of the tree: select it and show its state."""
        if self.pane.move_to(checkpoint_id):
            row = self.pane.get_item(checkpoint_id)
            if row is not None:
                self.show_row(row)
            self.tabs.active = "tab-state"
            self.pane.focus()
